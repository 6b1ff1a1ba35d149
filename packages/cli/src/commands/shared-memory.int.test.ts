import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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

const FACT = 'The staging database listens on port 5433.';

/**
 * Shared memory through the whole mesh: agent `a` saves a `global` fact with memory_save, agent `b`
 * finds it with memory_search (fenced as untrusted, naming its writer), an agent without
 * `permissions.memory` is refused with the line to add, and the operator reaches the same scope
 * with `openlegion memory global ...`.
 */
describe('shared memory scopes across agents', () => {
  let dir: string;
  let meshFile: string;
  let llm: FakeLlm;
  let host: MeshHost;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-shared-memory-'));
    llm = await startFakeLlm({
      script: {
        rules: [
          {
            match: { role: 'user', last_message: 'remember the staging port' },
            reply: { tool_calls: [{ name: 'memory_save', arguments: { content: FACT, scope: 'global' } }] },
          },
          {
            match: { role: 'user', last_message: 'which port does staging use' },
            reply: {
              tool_calls: [
                { name: 'memory_search', arguments: { query: 'staging database port', scope: 'global' } },
              ],
            },
          },
        ],
        default: { text: 'done' },
      },
    });
    const [port, egressPort] = await findFreePorts('127.0.0.1', 2);
    meshFile = path.join(dir, 'mesh.yaml');
    await writeFile(
      meshFile,
      `mesh: { name: shared, port: ${port}, egress_port: ${egressPort}, data_dir: data }
runtime: { kind: process }
llm:
  default_model: up/gpt-test
  providers: { up: { kind: openai-compatible, base_url: "http://127.0.0.1:9/v1" } }
agents:
  a: { tools: [memory_save, memory_search], permissions: { memory: { read: [global], write: [global] } } }
  b: { tools: [memory_save, memory_search], permissions: { memory: { read: ["*"] } } }
  c: { tools: [memory_save, memory_search] }
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
  /** The tool result the model was shown after the turn's tool call. */
  const toolResult = () => {
    const last = llm.requests.at(-1)?.body as { messages: { role: string; content: string }[] };
    return last.messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '';
  };

  it('lets agent b find the global fact agent a saved, fenced and naming a as its writer', async () => {
    expect(await cli('send', 'a', 'remember the staging port')).toMatchObject({ code: 0 });
    // Every tool result reaches the model fenced; inside it, what the host did.
    expect(toolResult()).toMatch(/^<untrusted source="tool memory_save">\ncreated \(global item \d+\): /);
    llm.reset();
    expect(await cli('send', 'b', 'which port does staging use')).toMatchObject({ code: 0 });
    const shown = toolResult();
    expect(shown).toContain('memories from global');
    expect(shown).toMatch(/\[global #\d+\] \(\w+, written by agent a, score/);
    // Each memory is fenced naming its scope and writer (inside the tool result's own fence, whose
    // opening tags inside are neutralised, as for a blackboard value).
    expect(shown).toMatch(/&lt;untrusted source="memory global #\d+ by agent a">\n/);
    expect(shown).toContain(FACT);
  });

  it('refuses an agent without permissions.memory, telling the model the line to add', async () => {
    llm.reset();
    await cli('send', 'c', 'remember the staging port');
    expect(toolResult()).toContain(
      'MESH_FORBIDDEN: agent "c" may not memory write "global": agents.c.permissions.memory.write in mesh.yaml is []; ' +
        'add "global" to agents.c.permissions.memory.write in mesh.yaml to allow it',
    );
  });

  it('gives the operator the scope: openlegion memory global search|save|list|delete', async () => {
    const found = await cli('memory', 'global', 'search', 'staging', 'port');
    expect(found.code).toBe(0);
    expect(found.out).toMatch(/^#\d+ {2}\d\.\d{3} {2}\[\w+\] {2}by a {2}The staging database/);
    const saved = await cli('memory', 'squad:ops', 'save', 'On-call', 'rotates', 'on', 'Mondays.');
    expect(saved.out).toMatch(/^created #(\d+): /);
    const id = /#(\d+)/.exec(saved.out)?.[1] ?? '';
    expect((await cli('memory', 'squad:ops', 'list')).out).toContain(
      'by the operator  On-call rotates on Mondays.',
    );
    expect((await cli('memory', 'squad:ops', 'delete', id)).out).toBe(`#${id} deleted\n`);
    expect((await cli('memory', 'squad:ops', 'list')).out).toBe('no items\n');
    const bad = await cli('memory', 'global', 'stats');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain(
      'no action "stats" for the shared scope global; actions: search, list, save, delete',
    );
  });

  it("gives the operator the squads' layered memory: write, list, read, distill, stats, flush", async () => {
    expect(
      (await cli('memory', 'squads', 'write', 'ops', 'process', 'We', 'review', 'in', 'pairs.')).out,
    ).toBe('written to ops process\n');
    for (const session of ['s1', 's2'])
      await cli('memory', 'squad:ops', 'save', `[ALL] Check the runbook first. (session ${session})`);
    // `save` writes no category: put the two episodes where capture puts them.
    for (const session of ['s1', 's2'])
      await cli(
        'memory',
        'squads',
        'write',
        'ops',
        'episodic',
        `[ONCALL] Page twice before escalating. (session ${session})`,
      );
    expect((await cli('memory', 'squads', 'distill', 'ops')).out).toBe(
      '1 lessons distilled into ops program memory\n',
    );
    expect((await cli('memory', 'squads', 'list')).out).toMatch(
      /^ops {2}\d+ items {2}process 1, program 1, episodic 2\n$/,
    );
    const read = await cli(
      'memory',
      'squads',
      'read',
      'ops',
      '--role',
      'oncall',
      '--task',
      'escalating a page',
    );
    expect(read.out).toContain('<untrusted source="squad memory ops">');
    expect(read.out).toContain('- We review in pairs.');
    expect(read.out).toContain('- [ONCALL] Page twice before escalating.');
    expect((await cli('memory', 'squads', 'stats')).out).toMatch(
      /^ops {2}process 1, program 1, episodic 2 {2}2 sessions {2}injected \d+ of 500 tokens\n$/,
    );
    expect((await cli('memory', 'squads', 'flush', 'ops', '--keep-program')).out).toBe(
      '2 entries of ops (episodic) deleted; process memory kept\n',
    );
    const bad = await cli('memory', 'squads', 'write', 'ops', 'gossip', 'x');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('write needs a layer (process, program, episodic) and the text');
  });
});
