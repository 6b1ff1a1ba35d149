import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeMeshHost, startFakeMeshHost } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentSpec } from './agent-runtime.js';
import { ProcessRuntime } from './process-runtime.js';

const agentDist = fileURLToPath(new URL('../../../agent/dist/main.js', import.meta.url));

// Stands in for the agent when packages/agent is not built: the same env contract and /status.
const INLINE_AGENT = `
import { createServer } from 'node:http';
const server = createServer((request, response) => {
  response.setHeader('content-type', 'application/json');
  if (request.url === '/skills/') {
    const dir = process.env.AGENT_FLEET_SKILLS_DIR;
    response.end(JSON.stringify({ skills: dir ? [{ name: 'csv-summary', source: 'fleet', path: dir + '/csv-summary' }] : [] }));
    return;
  }
  response.end(JSON.stringify({ agent: process.env.AGENT_ID, state: 'ready' }));
});
server.listen(Number(process.env.AGENT_PORT), process.env.AGENT_HOST, () => console.log('inline agent listening'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForStatus(url: string): Promise<unknown> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const response = await fetch(`${url}/status`, { signal: AbortSignal.timeout(1_000) });
      if (response.ok) return await response.json();
    } catch {
      if (Date.now() > deadline) throw new Error(`${url}/status never answered`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('ProcessRuntime', () => {
  const mesh = 'fleet-process-test';
  const token = 'process-test-token';
  let workDir: string;
  let agentEntry: string;
  let host: FakeMeshHost;
  let runtime: ProcessRuntime;
  let spec: AgentSpec;

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'openlegion-process-runtime-'));
    agentEntry = agentDist;
    if (!existsSync(agentDist)) {
      agentEntry = path.join(workDir, 'inline-agent.mjs');
      await writeFile(agentEntry, INLINE_AGENT);
    }
    runtime = new ProcessRuntime({ agentEntry, runDir: path.join(workDir, 'run'), stopTimeoutMs: 3_000 });
    const prepared = await runtime.prepare(mesh);
    host = await startFakeMeshHost({
      addresses: prepared.hostBindAddresses,
      agents: new Map([[token, { agent: 'beta', mesh, role: 'tester', model: 'scripted/test', soul: '' }]]),
    });
    spec = {
      mesh,
      agent: 'beta',
      env: { AGENT_ID: 'beta', MESH_URL: prepared.agentMeshUrl(host.port), MESH_TOKEN: token },
      resources: { memory: '512m', cpus: 1, pids: 256 },
      image: 'unused',
      dataDir: workDir,
    };
  });

  afterAll(async () => {
    await runtime?.stopAll();
    await host?.close();
    await rm(workDir, { recursive: true, force: true });
  });

  it('starts the agent on loopback and its /status answers at the returned url', async () => {
    const agent = await runtime.start(spec);
    expect(agent.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expect(waitForStatus(agent.url)).resolves.toMatchObject({ agent: 'beta' });
  });

  it("tells the agent where the fleet's skills folder is, and the agent reads it", async () => {
    const skillsDir = path.join(workDir, 'fleet-skills');
    await mkdir(path.join(skillsDir, 'csv-summary'), { recursive: true });
    await writeFile(
      path.join(skillsDir, 'csv-summary', 'SKILL.md'),
      '---\nname: csv-summary\ndescription: Summarise a CSV file.\n---\nRun the script.\n',
    );
    const agent = await runtime.start({ ...spec, skillsDir });
    await waitForStatus(agent.url);
    const response = await fetch(`${agent.url}/skills/`, { headers: { authorization: `Bearer ${token}` } });
    const { skills } = (await response.json()) as {
      skills: { name: string; source: string; path: string }[];
    };
    expect(skills.find((skill) => skill.source === 'fleet')).toMatchObject({
      name: 'csv-summary',
      path: path.join(skillsDir, 'csv-summary'),
    });
    await runtime.stop(agent.name);
  });

  it('keeps the agent output for logs', async () => {
    const agent = await runtime.start(spec);
    await waitForStatus(agent.url);
    await expect.poll(() => runtime.logs(agent.name, 50)).not.toBe('');
    expect((await runtime.logs(agent.name, 1)).split('\n')).toHaveLength(1);
  });

  it('stops the agent process', async () => {
    const agent = await runtime.start(spec);
    const pid = agent.pid ?? 0;
    await waitForStatus(agent.url);
    expect(isAlive(pid)).toBe(true);
    await runtime.stop(agent.name);
    expect(isAlive(pid)).toBe(false);
  });

  it('kills agents a crashed run left behind', async () => {
    const agent = await runtime.start(spec);
    await waitForStatus(agent.url);
    const nextRun = new ProcessRuntime({ agentEntry, runDir: path.join(workDir, 'run') });
    await expect(nextRun.cleanupLeftovers(mesh)).resolves.toEqual([agent.name]);
    await expect.poll(() => isAlive(agent.pid ?? 0)).toBe(false);
  });

  it('tells its listeners when an agent dies on its own, not when it is stopped', async () => {
    const exits: string[] = [];
    runtime.onUnexpectedExit((agent) => exits.push(agent));
    const stopped = await runtime.start(spec);
    await waitForStatus(stopped.url);
    await runtime.stop(stopped.name);
    const killed = await runtime.start(spec);
    await waitForStatus(killed.url);
    process.kill(killed.pid ?? 0, 'SIGKILL');
    await expect.poll(() => exits).toEqual(['beta']);
  });
});
