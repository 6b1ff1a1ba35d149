import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { FakeClock } from '@openlegion/infra/clock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, makeTempDir, toolNamed } from '../../../test/tool-harness.js';
import { ProcessRegistry } from './process-registry.js';
import { createProcessTools } from './process-tools.js';
import { createRunCommandTool } from './run-command-tool.js';

let workspace: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: workspace, remove: cleanup } = makeTempDir());
});
afterEach(() => cleanup());

/** Whether a process with this pid still runs (a zombie waiting to be reaped by init does not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('run_command', () => {
  const tool = createRunCommandTool({ env: { PATH: process.env.PATH, SECRET_FREE: 'yes' } });

  it('runs in the workspace and returns the exit code with the output fenced', async () => {
    const { text, isError } = await callTool(tool, { command: 'pwd; echo oops >&2; exit 0' }, { workspace });
    expect(isError).toBe(false);
    expect(text).toMatch(/^exit code 0 \(/);
    expect(text).toContain(`<untrusted source="run_command output">\n${workspace}\noops`);
  });

  it('reports a failing command as an error with its exit code', async () => {
    const { text, isError } = await callTool(tool, { command: 'echo bad; exit 3' }, { workspace });
    expect(isError).toBe(true);
    expect(text).toMatch(/^exit code 3/);
  });

  it('kills a command at its timeout, children included', async () => {
    const started = Date.now();
    const { text, isError } = await callTool(
      tool,
      { command: 'sleep 30 & echo $! > child.pid; wait', timeout_s: 1 },
      { workspace },
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(isError).toBe(true);
    expect(text).toContain('timed out after 1 s');
    const childPid = Number(readFileSync(path.join(workspace, 'child.pid'), 'utf8'));
    await until(() => !alive(childPid), 'the child to die');
  });

  it('kills the command when the turn is aborted', async () => {
    const controller = new AbortController();
    const running = callTool(tool, { command: 'sleep 30' }, { workspace, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const { text, isError } = await running;
    expect(isError).toBe(true);
    expect(text).toContain('cancelled');
  });

  it('returns when the command ends even if it left a background child holding its output', async () => {
    const started = Date.now();
    const { text, isError } = await callTool(
      tool,
      { command: 'sleep 30 & echo $! > left.pid; echo done', timeout_s: 20 },
      { workspace },
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(isError).toBe(false);
    expect(text).toMatch(/^exit code 0 \([\d.]+ s; processes it left in the background were killed/);
    expect(text).toContain('done');
    const leftPid = Number(readFileSync(path.join(workspace, 'left.pid'), 'utf8'));
    await until(() => !alive(leftPid), 'the leftover to die');
  });

  it('caps long output, keeping its head and tail with a note', async () => {
    const { text } = await callTool(tool, { command: 'seq 1 20000' }, { workspace });
    expect(text).toContain('\n1\n2\n');
    expect(text).toContain('\n20000\n');
    expect(text).toMatch(/\[\.\.\. \d+ bytes of output omitted \.\.\.\]/);
    expect(text.length).toBeLessThan(31_000);
  });

  it('does not hand the agent token to commands', async () => {
    const { createRunCommandTool: create } = await import('./run-command-tool.js');
    const previous = process.env.MESH_TOKEN;
    process.env.MESH_TOKEN = 'agent-secret';
    try {
      const defaultTool = create();
      const { text } = await callTool(defaultTool, { command: 'echo "token=$MESH_TOKEN"' }, { workspace });
      expect(text).toContain('token=\n');
      expect(text).not.toContain('agent-secret');
    } finally {
      if (previous === undefined) delete process.env.MESH_TOKEN;
      else process.env.MESH_TOKEN = previous;
    }
  });
});

describe('commandEnvironment', () => {
  it('hides the mesh token and keeps the proxy variables, whose token only the egress proxy accepts', async () => {
    const { commandEnvironment } = await import('./shell-process.js');
    const proxy = 'http://a:proxy-token@10.0.0.1:8421';
    const env = commandEnvironment({
      MESH_TOKEN: 'mesh-token',
      HTTP_PROXY: proxy,
      HTTPS_PROXY: proxy,
      PATH: '/bin',
    });
    expect(env).toEqual({ HTTP_PROXY: proxy, HTTPS_PROXY: proxy, PATH: '/bin' });
  });
});

describe('background processes', () => {
  it('starts a process whose output is readable, with a cursor for new output', async () => {
    const registry = new ProcessRegistry();
    const tools = createProcessTools(registry);
    try {
      const started = await callTool(
        toolNamed(tools, 'process_start'),
        { command: 'echo ready; sleep 30' },
        { workspace },
      );
      expect(started.text).toMatch(/^started p1 \(pid \d+\)/);
      await until(() => registry.get('p1').output.totalBytes > 0, 'output');
      const output = await callTool(toolNamed(tools, 'process_output'), { id: 'p1' }, { workspace });
      expect(output.text).toContain('p1 running; next=6');
      expect(output.text).toContain('ready');
      const again = await callTool(toolNamed(tools, 'process_output'), { id: 'p1', since: 6 }, { workspace });
      expect(again.text).toContain('(no new output)');
      const list = await callTool(toolNamed(tools, 'process_list'), {}, { workspace });
      expect(list.text).toMatch(/^p1 running for \d+ s, 6 bytes of output: echo ready/);
    } finally {
      await registry.closeAll();
    }
  });

  it('returns the newest output up to max_bytes and says how much was left out', async () => {
    const registry = new ProcessRegistry();
    const tools = createProcessTools(registry);
    try {
      await callTool(toolNamed(tools, 'process_start'), { command: 'seq 1 2000' }, { workspace });
      await until(() => !registry.get('p1').running, 'the end');
      const { text } = await callTool(
        toolNamed(tools, 'process_output'),
        { id: 'p1', max_bytes: 256 },
        { workspace },
      );
      expect(text).toContain('p1 ended; next=8893; 8637 earlier bytes not shown (raise max_bytes)');
      expect(text).toMatch(/\n1999\n2000\n<\/untrusted>$/);
    } finally {
      await registry.closeAll();
    }
  });

  it('kills every process at shutdown and refuses new ones after', async () => {
    const registry = new ProcessRegistry();
    const tools = createProcessTools(registry);
    await callTool(toolNamed(tools, 'process_start'), { command: 'sleep 60' }, { workspace });
    await callTool(toolNamed(tools, 'process_start'), { command: "trap '' TERM; sleep 60" }, { workspace });
    const pids = registry.list().map((entry) => entry.pid ?? 0);
    expect(pids.every(alive)).toBe(true);
    await registry.closeAll();
    expect(pids.some(alive)).toBe(false);
    expect(registry.list().map((entry) => entry.killedFor)).toEqual(['shutdown', 'shutdown']);
    const late = await callTool(toolNamed(tools, 'process_start'), { command: 'true' }, { workspace });
    expect(late).toMatchObject({ isError: true, text: expect.stringContaining('shutting down') });
  });

  it('allows a limited number running at once', async () => {
    const registry = new ProcessRegistry({ maxRunning: 2 });
    const start = toolNamed(createProcessTools(registry), 'process_start');
    try {
      await callTool(start, { command: 'sleep 30' }, { workspace });
      await callTool(start, { command: 'sleep 30' }, { workspace });
      const third = await callTool(start, { command: 'sleep 30' }, { workspace });
      expect(third).toMatchObject({
        isError: true,
        text: expect.stringContaining('2 processes are already running'),
      });
    } finally {
      await registry.closeAll();
    }
  });

  it('kills a process at its max runtime', async () => {
    const clock = new FakeClock(Date.now());
    const registry = new ProcessRegistry({ clock, maxRuntimeS: 60 });
    const tools = createProcessTools(registry);
    try {
      await callTool(
        toolNamed(tools, 'process_start'),
        { command: 'sleep 30', max_runtime_s: 5 },
        { workspace },
      );
      await clock.advance(4_000);
      expect(registry.get('p1').running).toBe(true);
      await clock.advance(1_000);
      await until(() => !registry.get('p1').running, 'the kill');
      const status = await callTool(toolNamed(tools, 'process_status'), { id: 'p1' }, { workspace });
      expect(status.text).toContain('(killed: max runtime)');
    } finally {
      await registry.closeAll();
    }
  });

  it('kills one process on request and reports an unknown id clearly', async () => {
    const registry = new ProcessRegistry();
    const tools = createProcessTools(registry);
    try {
      await callTool(toolNamed(tools, 'process_start'), { command: 'sleep 30' }, { workspace });
      const killed = await callTool(toolNamed(tools, 'process_kill'), { id: 'p1' }, { workspace });
      expect(killed.text).toContain('(killed: request)');
      const unknown = await callTool(toolNamed(tools, 'process_status'), { id: 'p9' }, { workspace });
      expect(unknown).toMatchObject({ isError: true, text: expect.stringContaining('no process "p9"') });
      expect(existsSync(workspace)).toBe(true);
    } finally {
      await registry.closeAll();
    }
  });
});
