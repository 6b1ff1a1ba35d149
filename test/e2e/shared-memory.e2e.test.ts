import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerAnswers, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';

/**
 * Shared memory across containers: alpha saves a `global` fact with memory_save, the host keeps it
 * in `<data_dir>/shared-memory.db`, beta (another container) finds it with memory_search, fenced and
 * naming alpha as its writer; gamma, without `permissions.memory`, is refused with the line to add.
 */
const haveDocker = await dockerAnswers();
if (process.env.OPENLEGION_REQUIRE_DOCKER === '1' && !haveDocker) {
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');
}
const runtimes: ('docker' | 'process')[] = haveDocker ? ['docker'] : ['process'];
const FACT = 'The staging database listens on port 5433.';

const script = {
  rules: [
    { match: { tool_result: 'created (global item' }, reply: { text: 'Saved for the fleet.' } },
    { match: { tool_result: FACT }, reply: { text: 'Staging uses port 5433.' } },
    { match: { tool_result: 'MESH_FORBIDDEN' }, reply: { text: 'Saving was refused.' } },
    { match: { last_message: 'brief me on the staging database' }, reply: { text: 'Briefed.' } },
    {
      match: { last_message: 'remember the staging port' },
      reply: { tool_calls: [{ name: 'memory_save', arguments: { content: FACT, scope: 'global' } }] },
    },
    {
      match: { last_message: 'which port does staging use' },
      reply: {
        tool_calls: [{ name: 'memory_search', arguments: { query: 'staging port', scope: 'global' } }],
      },
    },
  ],
};

describe.each(runtimes)('shared memory with the %s runtime', (runtime) => {
  let llm: FakeLlm;
  let mesh: E2eMesh;
  const env = { E2E_PROVIDER_KEY: 'sk-e2e-provider-key-shared-memory' };
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env });
  const toolMessages = () =>
    llm.requests
      .flatMap((request) => (request.body as { messages: { role: string; content: string }[] }).messages)
      .filter((message) => message.role === 'tool')
      .map((message) => message.content);

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    mesh = await writeMesh({
      prefix: `e2e-shmem-${runtime.slice(0, 4)}`,
      providerUrl: llm.url,
      runtime,
      agents: ['alpha', 'beta', 'gamma'],
      agentFields: {
        alpha: 'permissions: { memory: { read: [global], write: [global] } }',
        beta: 'permissions: { memory: { read: ["*"] } }',
      },
    });
    const start = await cli('start', '--detach');
    expect(start.code, start.stdout + start.stderr).toBe(0);
  });

  afterAll(async () => {
    await cli('stop');
    await llm?.close();
    if (runtime === 'docker') await removeMesh(mesh.name);
  });

  it('lets beta find the global fact alpha saved, from another container', async () => {
    const saved = await cli('send', 'alpha', 'remember the staging port');
    expect(saved.stdout, saved.stderr).toContain('Saved for the fleet.');
    const found = await cli('send', 'beta', 'which port does staging use');
    expect(found.stdout, found.stderr).toContain('Staging uses port 5433.');
    expect(toolMessages().find((text) => text.includes(FACT))).toMatch(/written by agent alpha/);
    const listed = await cli('memory', 'global', 'list');
    expect(listed.stdout).toContain(`by alpha  ${FACT}`);
  });

  it("recalls the global fact into beta's prompt without a tool call (beta may read *)", async () => {
    // A new conversation: in the first one beta's history holds the fact already (its search), and
    // recall never repeats what the prompt holds.
    const sent = await cli('send', 'beta', 'brief me on the staging database', '--conversation', 'brief');
    expect(sent.stdout, sent.stderr).toContain('Briefed.');
    const asked = llm.requests
      .map((request) => (request.body as { messages: { role: string; content: string }[] }).messages)
      .filter((messages) => messages.at(-1)?.content.includes('brief me on the staging database'))
      .at(-1);
    const prompt = asked?.at(-1)?.content ?? '';
    expect(prompt).toMatch(/\[memory global:\d+ · [a-z_]+ · saved [0-9-]+ · written by agent alpha\]/);
    expect(prompt).toContain(FACT);
  });

  it('refuses gamma, without permissions.memory, telling the model the line to add', async () => {
    const sent = await cli('send', 'gamma', 'remember the staging port');
    expect(sent.stdout, sent.stderr).toContain('Saving was refused.');
    expect(toolMessages().find((text) => text.includes('MESH_FORBIDDEN'))).toContain(
      'add "global" to agents.gamma.permissions.memory.write in mesh.yaml to allow it',
    );
  });
});
