import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePorts } from '@openlegion/infra/http';
import { createLogger } from '@openlegion/infra/log';
import { openDatabase } from '@openlegion/infra/sqlite';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMeshConfig } from '../config/index.js';
import { ProcessRuntime } from '../fleet/index.js';
import { createMeshHost } from '../mesh-host.js';
import type { MeshHost } from '../mesh-host-options.js';

const agentDist = fileURLToPath(new URL('../../../agent/dist/main.js', import.meta.url));

/**
 * Fleet spawn with the process runtime: each temporary agent is a real agent process (the built
 * `@openlegion/agent`), answering through the fake LLM; its data folder goes with it, and a host
 * start ends the runs a killed host left behind.
 */
describe.skipIf(!existsSync(agentDist))('fleet spawn (process runtime)', () => {
  let dir: string;
  let meshFile: string;
  let llm: FakeLlm;
  let host: MeshHost | undefined;
  let operator: string;

  const startHost = async () => {
    host = createMeshHost({
      loaded: await loadMeshConfig(meshFile),
      runtime: 'process',
      logger: createLogger({ level: 'silent' }),
      env: {},
      agentEntry: agentDist,
      agentRuntime: new ProcessRuntime({
        agentEntry: agentDist,
        runDir: path.join(dir, 'run'),
        stopTimeoutMs: 3_000,
      }),
      baseUrlOverrides: { up: llm.url },
    });
    await host.start();
    operator = readFileSync(path.join(dir, 'data', 'operator-token'), 'utf8').trim();
    return host;
  };
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${host?.status().url}${route}`, {
      method,
      headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: response.status,
      json: (await response.json()) as {
        agent: Record<string, unknown>;
        items: { category: string; content: string }[];
        error: { code: string; message: string };
      },
    };
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'host-spawn-'));
    llm = await startFakeLlm({
      script: {
        rules: [
          { match: { last_message: 'count the moons' }, reply: { text: 'MOONS=2' } },
          {
            match: { last_message: 'chart the moons' },
            reply: { text: 'CHARTED\n## Session Memory\n- [SCOUT] Phobos is the inner moon.' },
          },
        ],
        default: { text: 'ok' },
      },
    });
    const [port, egressPort] = await findFreePorts('127.0.0.1', 2);
    meshFile = path.join(dir, 'mesh.yaml');
    await writeFile(
      meshFile,
      `mesh: { name: spawnproc, port: ${port}, egress_port: ${egressPort}, data_dir: data }
runtime: { kind: process }
llm:
  default_model: up/gpt-test
  providers: { up: { kind: openai-compatible, base_url: "http://127.0.0.1:9/v1" } }
agents:
  lead: { tools: minimal }
templates:
  counter: { tools: minimal }
  scout: { tools: minimal, squad: moons }
`,
    );
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
    await llm?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs a temporary agent process from the template, returns its answer and removes it with its data', async () => {
    await startHost();
    const { status, json } = await call('POST', '/api/spawn', {
      template: 'counter',
      task: 'count the moons',
      wait_s: 60,
    });
    expect(status).toBe(200);
    const agent = json.agent as { name: string; state: string; result: string; origin: string };
    expect(agent).toMatchObject({ state: 'done', result: 'MOONS=2', origin: 'operator' });
    const deadline = Date.now() + 15_000;
    while (host?.status().agents.length !== 1 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(host?.status().agents.map((record) => record.name)).toEqual(['lead']);
    expect(existsSync(path.join(dir, 'data', 'agents', agent.name))).toBe(false);
    expect(existsSync(path.join(dir, 'data', 'agents', 'lead'))).toBe(true);
  }, 60_000);

  it("gives a squad's temporary agent the squad's memory and keeps the lessons of its answer", async () => {
    if (!host) await startHost();
    const first = await call('POST', '/api/spawn', {
      template: 'scout',
      task: 'chart the moons',
      wait_s: 60,
    });
    expect(first.json.agent).toMatchObject({ state: 'done', squad: 'moons', task: 'chart the moons' });
    const lesson = (name: unknown) => `[SCOUT] Phobos is the inner moon. (session ${String(name)})`;
    let items: { category: string; content: string }[] = [];
    const deadline = Date.now() + 10_000;
    while (items.length === 0 && Date.now() < deadline) {
      items = (await call('GET', '/api/memory/squad%3Amoons/items')).json.items;
      if (items.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(items).toEqual([
      expect.objectContaining({ category: 'episodic', content: lesson(first.json.agent.name) }),
    ]);

    llm.reset();
    await call('POST', '/api/spawn', { template: 'scout', task: 'chart the moons again', wait_s: 60 });
    const sent = JSON.stringify(llm.requests.map((request) => request.body));
    expect(sent).toContain('<untrusted source=\\"squad memory moons\\">');
    expect(sent).toContain(lesson(first.json.agent.name));
  }, 60_000);

  it('refuses a squad name that is not one with 400 REQUEST_INVALID', async () => {
    if (!host) await startHost();
    const { status, json } = await call('POST', '/api/spawn', { template: 'scout', task: 't', squad: 'a b' });
    expect(status).toBe(400);
    expect(json.error).toMatchObject({
      code: 'REQUEST_INVALID',
      message:
        'invalid request: body.squad: use a squad name: letters, digits, ".", "_" and "-", starting with a letter or digit (max 64)',
    });
  });

  it('ends at start what a killed host left running, and deletes its data', async () => {
    await host?.stop();
    host = undefined;
    // What a host killed mid-run leaves: a live row and the agent's data folder.
    const db = openDatabase(path.join(dir, 'data', 'mesh.db'));
    db.prepare(
      `INSERT INTO temporary_agents (name, template, spawner, origin, task, state, created_at, expires_at)
       VALUES ('counter-dead', 'counter', NULL, 'operator', 'count', 'running', 0, 600000)`,
    ).run();
    db.close();
    await mkdir(path.join(dir, 'data', 'agents', 'counter-dead'), { recursive: true });
    await startHost();
    const { json } = await call('GET', '/api/spawn/counter-dead');
    expect(json.agent).toMatchObject({ state: 'failed', result: 'the host stopped before it finished' });
    const deadline = Date.now() + 10_000;
    while (existsSync(path.join(dir, 'data', 'agents', 'counter-dead')) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(path.join(dir, 'data', 'agents', 'counter-dead'))).toBe(false);
  }, 60_000);
});
