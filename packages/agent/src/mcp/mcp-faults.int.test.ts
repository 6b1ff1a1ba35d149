import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { ODD_SERVER, stdio, testManager } from '../../test/mcp-servers.js';
import { callTool, makeTempDir, toolNamed } from '../../test/tool-harness.js';
import type { McpManager } from './mcp-manager.js';

const temp = makeTempDir('ol-mcp-faults-');
let manager: McpManager | undefined;
afterEach(async () => {
  await manager?.close();
  manager = undefined;
});

async function started(mode: string, options: { timeoutMs?: number; initTimeoutMs?: number } = {}) {
  manager = testManager([stdio('odd', [ODD_SERVER, mode], options.timeoutMs)], temp.dir, {
    initTimeoutMs: options.initTimeoutMs ?? 3_000,
    restartDelaysMs: [60_000],
  });
  await manager.start();
  return manager;
}

const call = (m: McpManager, tool: string, args: unknown = {}) =>
  callTool(toolNamed([...m.tools()], tool), args, { workspace: temp.dir });

describe('McpManager against servers that misbehave', () => {
  it('reports a server that exits at once, with its stderr, and keeps the catalogue tools', async () => {
    const m = await started('exit');
    const [status] = m.servers();
    expect(status).toMatchObject({ name: 'odd', state: 'failed', tools: 0 });
    expect(status?.error).toMatch(
      /^did not start: .*Connection closed.*\(stderr: odd-server: cannot open its config, giving up\)$/,
    );
    expect(m.tools().map((tool) => tool.name)).toEqual(['mcp_list', 'mcp_read_resource', 'mcp_get_prompt']);
    const listed = await call(m, 'mcp_list');
    expect(listed.text).toMatch(/^odd \(stdio\): failed, 0 tools\n {2}did not start: /);
    await expect(m.call('odd', 'add', {})).rejects.toMatchObject({
      code: 'AGENT_MCP_SERVER_UNAVAILABLE',
      message: expect.stringMatching(
        /^MCP server odd is not available \(failed\): did not start: .*; it is tried again shortly$/,
      ),
    });
  });

  it('gives up on a server that never answers initialize', async () => {
    const m = await started('silent', { initTimeoutMs: 300 });
    expect(m.servers()[0]?.error).toMatch(/^did not start: MCP error -32001: Request timed out/);
  });

  it('gives up on a server that answers with lines that are not JSON', async () => {
    const m = await started('garbage', { initTimeoutMs: 1_500 });
    expect(m.servers()[0]).toMatchObject({
      state: 'failed',
      error: expect.stringMatching(
        /^did not start: MCP error -32001: Request timed out \(it wrote what is not JSON-RPC: .*JSON/,
      ),
    });
  });

  it('stops a server that writes an endless line on stdout, before it fills memory', async () => {
    manager = testManager([stdio('odd', [ODD_SERVER, 'endless-line'])], temp.dir, {
      stdoutLineMaxBytes: 1024 * 1024,
      restartDelaysMs: [60_000],
    });
    await manager.start();
    expect(manager.servers()[0]).toMatchObject({
      state: 'failed',
      error: expect.stringMatching(
        /^did not start: .*\(it wrote over 1 MiB on stdout without a line end, and was stopped\)$/,
      ),
    });
  });

  it('refuses a server that speaks a protocol version the client does not know', async () => {
    const m = await started('old-version');
    expect(m.servers()[0]?.error).toBe(
      "did not start: Server's protocol version is not supported: 1999-01-01",
    );
  });

  it('keeps only the end of a stderr flood and works', async () => {
    const m = await started('flood');
    expect(m.servers()[0]?.state).toBe('ready');
    expect(await call(m, 'odd__add', { a: 2, b: 3 })).toEqual({ text: '5', isError: false });
  });

  it('leaves out a tool whose name model APIs refuse, saying why to the model and the operator', async () => {
    const m = await started('ok');
    expect(m.servers()[0]).toMatchObject({ state: 'ready', tools: 4, skipped: 1 });
    expect(m.toolViews('odd').find((tool) => tool.server_tool === 'bad.name')).toEqual({
      name: 'odd__bad.name',
      server_tool: 'bad.name',
      description: '',
      skipped: 'its name "odd__bad.name" is not 1-64 letters, digits, "_" or "-", which model APIs require',
    });
    expect((await call(m, 'mcp_list')).text).toContain('left out: bad.name: its name "odd__bad.name" is not');
  });

  it('ends a call that takes longer than timeout_ms with a clear result', async () => {
    const m = await started('ok', { timeoutMs: 200 });
    expect(await call(m, 'odd__sleep', { ms: 5_000 })).toEqual({
      text: 'odd__sleep timed out after 200 ms (mesh.yaml timeout_ms of server odd); the server may still be working on it',
      isError: true,
    });
    expect(await call(m, 'odd__add', { a: 1, b: 1 })).toEqual({ text: '2', isError: false });
  });

  it('lists tools again on notifications/tools/list_changed', async () => {
    let changes = 0;
    manager = testManager([stdio('odd', [ODD_SERVER, 'ok'])], temp.dir, {
      onToolsChanged: () => (changes += 1),
    });
    await manager.start();
    const m = manager;
    const before = changes;
    expect(await call(m, 'odd__grow')).toEqual({ text: 'grew', isError: false });
    await expect
      .poll(() => m.tools().some((tool) => tool.name === 'odd__grown'), { timeout: 5_000 })
      .toBe(true);
    expect(changes).toBeGreaterThan(before);
    expect(await call(m, 'odd__grown')).toEqual({ text: 'grown here', isError: false });
  });

  it('restarts a server that crashed and says so in the next result', async () => {
    manager = testManager([stdio('odd', [ODD_SERVER, 'ok'])], temp.dir, { restartDelaysMs: [50] });
    await manager.start();
    const m = manager;
    const crashed = await call(m, 'odd__crash');
    expect(crashed).toEqual({
      text: 'MCP server odd stopped during the call (stderr: odd-server: crashing on request); it is being restarted, call again in a moment',
      isError: true,
    });
    const after = await call(m, 'odd__add', { a: 20, b: 22 });
    expect(after).toEqual({
      text: '[MCP server odd had stopped (the server stopped (stderr: odd-server: crashing on request)) and was restarted (restart 1)]\n42',
      isError: false,
    });
    expect(m.servers()[0]).toMatchObject({ state: 'ready', restarts: 1 });
  });

  it("leaves no listener on the turn's signal after its calls", async () => {
    const m = await started('ok');
    const turn = new AbortController();
    const add = toolNamed([...m.tools()], 'odd__add');
    for (let i = 0; i < 20; i += 1)
      await add.run({ a: i, b: 1 }, { workspace: temp.dir, signal: turn.signal });
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
  });
});
