import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadMeshConfig } from '@openlegion/host/config';
import { createMeshHost, type MeshHost } from '@openlegion/host/mesh';
import { findFreePorts } from '@openlegion/infra/http';
import { createLogger } from '@openlegion/infra/log';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture } from '../../test/captured-output.js';
import { InProcessRuntime } from '../../test/in-process-runtime.js';
import { runCli } from '../program.js';

/**
 * Fleet-level spawn through the whole mesh (the real agent, host, lanes and CLI; agents run in
 * this process): the lead's `spawn_agent` starts a temporary agent from a template, its answer
 * comes back (awaited, or into the lead's lane), and the agent is gone afterwards; the operator
 * spawns with `openlegion spawn`, and a cron entry with `spawn:` does too.
 */
describe('fleet spawn through the mesh', () => {
  let dir: string;
  let meshFile: string;
  let llm: FakeLlm;
  let host: MeshHost;
  let operatorToken: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-spawn-'));
    llm = await startFakeLlm({
      script: {
        rules: [
          {
            match: { tool_result: 'TIDE-06:12' },
            reply: { text: 'The researcher says high tide is at 06:12.' },
          },
          {
            match: { tool_result: 'its answer will arrive as a message' },
            reply: { text: 'Started one; I will read its answer when it comes.' },
          },
          {
            match: { last_message: 'finished the task you gave it' },
            reply: { text: 'Noted the background answer.' },
          },
          { match: { last_message: 'find the tide' }, reply: { text: 'TIDE-06:12' } },
          { match: { last_message: 'take it slow' }, reply: { text: 'SLOW-DONE', delay_ms: 1_500 } },
          {
            match: { role: 'user', last_message: 'ask a researcher' },
            reply: {
              tool_calls: [
                {
                  name: 'spawn_agent',
                  arguments: { template: 'researcher', task: 'find the tide', wait_s: 60 },
                },
              ],
            },
          },
          {
            match: { role: 'user', last_message: 'in the background' },
            reply: {
              tool_calls: [
                { name: 'spawn_agent', arguments: { template: 'researcher', task: 'find the tide' } },
              ],
            },
          },
          {
            match: { role: 'user', last_message: 'a writer please' },
            reply: {
              tool_calls: [{ name: 'spawn_agent', arguments: { template: 'writer', task: 'write' } }],
            },
          },
          {
            match: { role: 'user', last_message: 'a squad researcher' },
            reply: {
              tool_calls: [
                {
                  name: 'spawn_agent',
                  arguments: { template: 'researcher', task: 'find the tide', squad: 'tides' },
                },
              ],
            },
          },
          { match: { tool_result: 'MESH_FORBIDDEN' }, reply: { text: 'I may not start a writer.' } },
        ],
        default: { text: 'ok' },
      },
    });
    const [port, egressPort] = await findFreePorts('127.0.0.1', 2);
    meshFile = path.join(dir, 'mesh.yaml');
    await writeFile(
      meshFile,
      `mesh: { name: spawn, port: ${port}, egress_port: ${egressPort}, data_dir: data }
runtime: { kind: process }
llm:
  default_model: up/gpt-test
  providers: { up: { kind: openai-compatible, base_url: "http://127.0.0.1:9/v1" } }
agents:
  lead:
    tools: [spawn_agent, spawned_agents]
    permissions: { spawn: [research*] }
    cron: [{ schedule: "every 24h", spawn: researcher, message: find the tide }]
templates:
  researcher: { role: Finds one fact, tools: minimal }
  writer: {}
`,
    );
    host = createMeshHost({
      loaded: await loadMeshConfig(meshFile),
      runtime: 'process',
      logger: createLogger({ level: 'silent' }),
      env: {},
      agentEntry: '/unused',
      agentRuntime: new InProcessRuntime(),
      baseUrlOverrides: { up: llm.url },
    });
    await host.start();
    operatorToken = (await readFile(path.join(dir, 'data', 'operator-token'), 'utf8')).trim();
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
    await llm?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => {
    const output = capture();
    const code = await runCli(['node', 'openlegion', ...args, '-c', meshFile], output);
    return { code, out: output.stdout(), err: output.stderr() };
  };
  const api = async <T>(route: string): Promise<T> => {
    const response = await fetch(`${host.status().url}${route}`, {
      headers: { authorization: `Bearer ${operatorToken}` },
    });
    return (await response.json()) as T;
  };
  type Listed = { agents: { name: string; state: string; result: string | null; spawner: string | null }[] };
  const until = async (what: string, done: () => Promise<boolean> | boolean) => {
    const deadline = Date.now() + 15_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const agentsInStatus = () => host.status().agents.map((agent) => agent.name);

  it("hands the temporary agent's answer to the lead's waiting tool call, then removes the agent", async () => {
    const sent = await cli('send', 'lead', 'ask a researcher');
    expect(sent.code).toBe(0);
    expect(sent.out).toContain('spawn_agent(template: researcher, task: find the tide, wait_s: 60)');
    expect(sent.out).toMatch(/\nThe researcher says high tide is at 06:12\.\n$/);
    const { agents } = await api<Listed>('/api/spawn');
    expect(agents[0]).toMatchObject({ state: 'done', result: 'TIDE-06:12', spawner: 'lead' });
    expect(agents[0]?.name).toMatch(/^researcher-[0-9a-f]{4}$/);
    await until('the removal', () => agentsInStatus().length === 1);
    expect(agentsInStatus()).toEqual(['lead']);
  });

  it("puts the answer into the lead's lane when it does not wait", async () => {
    const sent = await cli('send', 'lead', 'start a researcher in the background');
    expect(sent.out).toMatch(/→ started researcher-[0-9a-f]{4} \(template researcher, removed at /);
    expect(sent.out).toMatch(/\nStarted one; I will read its answer when it comes\.\n$/);
    const lastUser = () =>
      llm.requests.map((request) => {
        const body = request.body as { messages: { role: string; content: string }[] };
        return body.messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
      });
    await until('the result in the lead lane', () =>
      lastUser().some((text) => text.includes('finished the task you gave it')),
    );
    const told = lastUser().find((text) => text.includes('finished the task you gave it')) ?? '';
    expect(told).toMatch(/^Temporary agent "researcher-[0-9a-f]{4}" \(template researcher\) finished/);
    expect(told).toContain('"TIDE-06:12"');
  });

  it('refuses a template outside permissions.spawn as the tool result MESH_FORBIDDEN', async () => {
    const sent = await cli('send', 'lead', 'a writer please');
    expect(sent.out).toContain('✗ MESH_FORBIDDEN: agent "lead" may not spawn "writer"');
    expect(sent.out).toMatch(/\nI may not start a writer\.\n$/);
    const refusal = llm.requests
      .flatMap((request) => (request.body as { messages: { role: string; content: string }[] }).messages)
      .find((message) => message.role === 'tool' && message.content.includes('MESH_FORBIDDEN'));
    expect(refusal?.content).toContain(
      'agent "lead" may not spawn "writer": agents.lead.permissions.spawn in mesh.yaml is ["research*"]',
    );
  });

  it('lets the operator spawn and wait with openlegion spawn, and shows the agent as temporary meanwhile', async () => {
    const spawned = cli('spawn', 'researcher', 'take', 'it', 'slow');
    await until('the temporary agent in status', () => host.status().agents.some((agent) => agent.temporary));
    const status = await cli('status');
    expect(status.out).toMatch(/ {2}researcher-[0-9a-f]{4} +\S+ +up\/gpt-test {2}\(temporary\)\n/);
    expect(await spawned).toMatchObject({ code: 0, out: 'SLOW-DONE\n' });
    const unknown = await cli('spawn', 'nope', 'anything');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain(
      'no template "nope" under templates in mesh.yaml (templates: researcher, writer)',
    );
  });

  it('spawns with a squad for the operator (openlegion spawn --squad), and refuses the lead without permissions.memory', async () => {
    expect(await cli('spawn', '--squad', 'tides', 'researcher', 'find', 'the', 'tide')).toMatchObject({
      code: 0,
      out: 'TIDE-06:12\n',
    });
    expect((await cli('spawn', '--list')).out).toMatch(
      /^researcher-[0-9a-f]{4} {2}done {2}by operator {2}squad tides {2}started /,
    );
    const sent = await cli('send', 'lead', 'a squad researcher');
    expect(sent.out).toContain('✗ MESH_FORBIDDEN: agent "lead" may not memory read "squad:tid');
    const refusal = llm.requests
      .flatMap((request) => (request.body as { messages: { role: string; content: string }[] }).messages)
      .find((message) => message.role === 'tool' && message.content.includes('squad:tides'));
    expect(refusal?.content).toContain(
      'agent "lead" may not memory read "squad:tides": agents.lead.permissions.memory.read in mesh.yaml is []; add "squad:tides" to agents.lead.permissions.memory.read in mesh.yaml to allow it',
    );
    // Refused before anything was made: the operator's run is the only one with the squad.
    const { agents } = await api<{ agents: { squad?: string }[] }>('/api/spawn');
    expect(agents.filter((agent) => agent.squad === 'tides')).toHaveLength(1);
  });

  it('spawns from a cron entry with spawn: and records the answer on the job', async () => {
    expect(await cli('cron', 'run', 'lead#0')).toMatchObject({ code: 0 });
    type Jobs = { jobs: { id: string; lastResult: string | null }[] };
    const result = async () =>
      (await api<Jobs>('/api/cron')).jobs.find((job) => job.id === 'lead#0')?.lastResult;
    await until('the cron result', async () => (await result())?.endsWith(': TIDE-06:12') ?? false);
    expect(await result()).toMatch(/^researcher-[0-9a-f]{4}: TIDE-06:12$/);
  });
});
