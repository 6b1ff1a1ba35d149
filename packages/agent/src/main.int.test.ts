import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type AgentSelf,
  agentReadyRequestSchema,
  agentSelfSchema,
  agentStatusSchema,
} from '@openlegion/protocol';
import { type FakeLlm, type FakeMeshHost, startFakeLlm, startFakeMeshHost } from '@openlegion/testkit';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postChat } from '../test/sse-events.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const mainJs = join(repoRoot, 'packages/agent/dist/main.js');
const TOKEN = 'main-e2e-token-0123456789';
const self: AgentSelf = agentSelfSchema.parse({
  agent: 'beta',
  mesh: 'm',
  role: 'r',
  model: 'scripted/gpt-test',
  soul: '',
});

const readySchema = agentReadyRequestSchema.required({ url: true });

interface AgentProcess {
  exited: Promise<{ code: number | null; stderr: string }>;
  spawnedMs: number;
  kill(signal: NodeJS.Signals): void;
}

function spawnAgent(env: Record<string, string>): AgentProcess {
  const spawnedMs = performance.now();
  const child = spawn(process.execPath, [mainJs], { env: { PATH: process.env.PATH ?? '', ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.resume();
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stderr })),
  );
  return { exited, spawnedMs, kill: (signal) => child.kill(signal) };
}

describe('node packages/agent/dist/main.js', () => {
  let llm: FakeLlm;
  let host: FakeMeshHost;
  let dataDir: string;
  let agent: AgentProcess | undefined;

  beforeAll(() => {
    execFileSync('pnpm', ['tsc', '-b', 'packages/agent'], { cwd: repoRoot, stdio: 'inherit' });
  });
  beforeEach(async () => {
    llm = await startFakeLlm({ script: { models: [self.model], default: { text: 'hello from main' } } });
    host = await startFakeMeshHost({ agents: new Map([[TOKEN, self]]), llmUrl: llm.url });
    dataDir = mkdtempSync(join(tmpdir(), 'agent-main-'));
  });
  afterEach(async () => {
    agent?.kill('SIGKILL');
    await agent?.exited;
    agent = undefined;
    await host.close();
    await llm.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const startAgent = () =>
    spawnAgent({
      AGENT_ID: self.agent,
      MESH_URL: host.url,
      MESH_TOKEN: TOKEN,
      AGENT_HOST: '127.0.0.1',
      AGENT_PORT: '0',
      AGENT_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });

  it('reports ready to the host and answers /status', async () => {
    agent = startAgent();
    const { url } = readySchema.parse(await host.readyOf(TOKEN));
    const readyMs = Math.round(performance.now() - agent.spawnedMs);
    console.info(`agent main.js: spawn to POST /mesh/ready in ${readyMs} ms`);
    const status = agentStatusSchema.parse(await (await fetch(`${url}/status`)).json());
    expect([url, status.state, status.agent, status.version]).toEqual([
      expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      'ready',
      'beta',
      '0.1.0',
    ]);
  });

  it('answers a chat', async () => {
    agent = startAgent();
    const { url } = readySchema.parse(await host.readyOf(TOKEN));
    const { events } = await postChat(url, TOKEN, { message: 'hi' });
    expect(events.at(-1)).toEqual({ type: 'done', conversation_id: 'default', text: 'hello from main' });
  });

  it('exits 0 on SIGTERM', async () => {
    agent = startAgent();
    await host.readyOf(TOKEN);
    agent.kill('SIGTERM');
    expect((await agent.exited).code).toBe(0);
  });

  it('exits 1 naming a missing variable', async () => {
    agent = spawnAgent({ AGENT_ID: 'x', MESH_URL: host.url });
    const { code, stderr } = await agent.exited;
    expect([code, stderr]).toEqual([1, expect.stringContaining('MESH_TOKEN is required')]);
  });

  it('never writes its token to the log', async () => {
    agent = spawnAgent({
      AGENT_ID: 'x',
      MESH_URL: 'http://127.0.0.1:1',
      MESH_TOKEN: TOKEN,
      AGENT_HOST: '127.0.0.1',
      AGENT_PORT: '0',
      AGENT_DATA_DIR: dataDir,
      LOG_LEVEL: 'trace',
    });
    const { code, stderr } = await agent.exited;
    expect([code, stderr.includes(TOKEN)]).toEqual([1, false]);
  });
});
