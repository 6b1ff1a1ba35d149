import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docker, dockerAnswers, meshLeftovers, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';
import { waitUntil } from './support/wait-until.js';

/**
 * Fleet-level spawn in hardened containers (issue 23): the lead's `spawn_agent` starts a temporary
 * agent container from a mesh.yaml template, gets its answer, and the container and its volume are
 * gone afterwards; the operator spawns with `openlegion spawn`; a template's squad gives its
 * agents the squad's memory and keeps their lessons; a host stop removes a temporary agent still at
 * work.
 */
const haveDocker = await dockerAnswers();
if (process.env.OPENLEGION_REQUIRE_DOCKER === '1' && !haveDocker) {
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');
}
const runtime = haveDocker ? 'docker' : 'process';

const script = {
  rules: [
    { match: { tool_result: 'TIDE-06:12' }, reply: { text: 'The researcher says high tide is at 06:12.' } },
    { match: { last_message: 'find the tide' }, reply: { text: 'TIDE-06:12' } },
    { match: { last_message: 'take it slow' }, reply: { text: 'SLOW-DONE', delay_ms: 60_000 } },
    {
      match: { last_message: 'chart the moons' },
      reply: { text: 'CHARTED\n## Session Memory\n- [SCOUT] Phobos is the inner moon.' },
    },
    {
      match: { last_message: 'ask a researcher' },
      reply: {
        tool_calls: [
          { name: 'spawn_agent', arguments: { template: 'researcher', task: 'find the tide', wait_s: 120 } },
        ],
      },
    },
  ],
  default: { text: 'ok' },
};

type Status = { agents: { name: string; state: string; temporary?: boolean }[] };

describe(`fleet spawn (${runtime})`, () => {
  let llm: FakeLlm;
  let mesh: E2eMesh;
  const env = { E2E_PROVIDER_KEY: 'sk-e2e-provider-key-spawn' };
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env });
  const status = async () => JSON.parse((await cli('status', '--json')).stdout) as Status;
  const containers = async () => (runtime === 'docker' ? (await meshLeftovers(mesh.name)).containers : []);
  const volumes = async () =>
    runtime === 'docker'
      ? (await docker('volume', 'ls', '-q', '--filter', `label=openlegion.mesh=${mesh.name}`))
          .split('\n')
          .filter(Boolean)
      : [];

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    mesh = await writeMesh({
      prefix: `e2e-spawn-${runtime.slice(0, 4)}`,
      providerUrl: llm.url,
      runtime,
      agents: ['lead'],
      agentFields: { lead: 'tools: [spawn_agent, spawned_agents], permissions: { spawn: [researcher] }' },
      extra:
        'templates:\n  researcher: { role: Finds one fact, tools: minimal }\n' +
        '  scout: { role: Charts moons, tools: minimal, squad: moons }\n',
    });
    const start = await cli('start', '--detach');
    expect(start.code, start.stdout + start.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await cli('stop');
    await llm?.close();
    if (runtime === 'docker') await removeMesh(mesh.name);
  });

  it("answers from a temporary agent's container, which is gone afterwards with its volume", async () => {
    const sent = await cli('send', 'lead', 'ask a researcher');
    expect(sent.stdout, sent.stderr).toContain('The researcher says high tide is at 06:12.');
    const listed = await cli('spawn', '--list');
    expect(listed.stdout).toMatch(/^researcher-[0-9a-f]{4} {2}done {2}by lead /m);
    await waitUntil(async () => (await status()).agents.length === 1, 'the temporary agent removed', 30_000);
    if (runtime === 'docker') {
      expect(await containers()).toEqual([`openlegion-${mesh.name}-lead`]);
      expect(await volumes()).toEqual([`openlegion-${mesh.name}-lead-data`]);
    }
  });

  it('lets the operator spawn with openlegion spawn and prints the answer', async () => {
    const spawned = await cli('spawn', 'researcher', 'find the tide');
    expect(spawned.code, spawned.stderr).toBe(0);
    expect(spawned.stdout).toBe('TIDE-06:12\n');
  });

  it("gives a squad template's agent the squad's memory and keeps the lessons of its answer", async () => {
    const first = await cli('spawn', 'scout', 'chart the moons');
    expect(first.stdout, first.stderr).toContain('CHARTED');
    const name = /^(scout-[0-9a-f]{4}) {2}done {2}by operator {2}squad moons /m.exec(
      (await cli('spawn', '--list')).stdout,
    )?.[1];
    expect(name).toBeDefined();
    const lesson = `[SCOUT] Phobos is the inner moon. (session ${name})`;
    await waitUntil(
      async () => (await cli('memory', 'squads', 'read', 'moons', '--role', 'scout')).stdout.includes(lesson),
      'the lesson captured',
      30_000,
    );
    llm.reset();
    expect((await cli('spawn', 'scout', 'chart the moons again')).stdout).toContain('CHARTED');
    const sent = JSON.stringify(llm.requests.map((request) => request.body));
    expect(sent).toContain('squad memory moons');
    expect(sent).toContain(lesson);
  }, 120_000);

  it('shows a working temporary agent in status, and removes it when the host stops', async () => {
    const started = await cli('spawn', 'researcher', 'take it slow', '--wait', '0');
    expect(started.stdout).toMatch(/^researcher-[0-9a-f]{4} started/);
    await waitUntil(
      async () => (await status()).agents.some((agent) => agent.temporary && agent.state === 'ready'),
      'the temporary agent ready',
      60_000,
    );
    expect((await cli('status')).stdout).toMatch(/researcher-[0-9a-f]{4} +ready .*\(temporary\)/);
    expect(await cli('stop')).toMatchObject({ code: 0 });
    if (runtime === 'docker') {
      expect((await meshLeftovers(mesh.name)).containers).toEqual([]);
      expect(await volumes()).toEqual([`openlegion-${mesh.name}-lead-data`]);
    }
  }, 120_000);
});
