import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerAnswers, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';
import { waitUntil } from './support/wait-until.js';

/**
 * A team in hardened containers (issue 23): docs/mesh.md's example as written. The writer
 * subscribes with its own `subscribe` tool; the researcher's `publish` wakes it with the event as a
 * message in its lane; the writer reads the blackboard entry the event names and drafts. The
 * researcher fans work out to two subagents in its container and answers from both.
 */
const haveDocker = await dockerAnswers();
if (process.env.OPENLEGION_REQUIRE_DOCKER === '1' && !haveDocker) {
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');
}
const runtime = haveDocker ? 'docker' : 'process';

const script = {
  rules: [
    {
      match: { last_message: 'listen for research' },
      reply: { tool_calls: [{ name: 'subscribe', arguments: { pattern: 'research.*' } }] },
    },
    { match: { tool_result: 'subscribed to research.*' }, reply: { text: 'Listening.' } },
    {
      match: { last_message: 'file the tides notes' },
      reply: {
        tool_calls: [
          { name: 'blackboard_put', arguments: { key: 'research/tides', value: { high: '06:12' } } },
          { name: 'publish', arguments: { topic: 'research.done', payload: { key: 'research/tides' } } },
        ],
      },
    },
    { match: { tool_result: 'published event' }, reply: { text: 'Filed and announced.' } },
    {
      match: { last_message: 'Event on topic "research.done"' },
      reply: { tool_calls: [{ name: 'blackboard_get', arguments: { key: 'research/tides' } }] },
    },
    { match: { tool_result: '"high": "06:12"' }, reply: { text: 'Draft: high tide is at 06:12.' } },
    // Subagents: the researcher fans out two, collects both, answers from both.
    {
      match: { last_message: 'plan the beach day' },
      reply: {
        tool_calls: [
          { name: 'spawn_subagent', arguments: { task: 'Find the high tide time for Porto tomorrow.' } },
          { name: 'spawn_subagent', arguments: { task: 'Find the moon phase tomorrow.' } },
        ],
      },
    },
    // Squad memory: three surveys, each a subagent of squad research; each child ends with a lesson.
    {
      match: { last_message_regex: '^survey beach \\d$' },
      reply: {
        tool_calls: [
          {
            name: 'spawn_subagent',
            arguments: { task: 'Survey the beach and report.', role: 'researcher', squad: 'research' },
          },
        ],
      },
    },
    { match: { tool_result: 'Beach surveyed.' }, reply: { text: 'Survey filed.' } },
    {
      match: { last_message: 'Survey the beach and report.' },
      reply: {
        text: 'Beach surveyed.\n## Session Memory\n- [RESEARCHER] Lifeguards post the tide times at 08:00.',
      },
    },
    {
      match: { tool_result: 'The moon is waxing gibbous.' },
      reply: { text: 'Go at 06:12 under a waxing gibbous moon.' },
    },
    {
      match: { tool_result: 'collect its answer with subagent_result' },
      reply: { tool_calls: [{ name: 'subagent_result', arguments: { wait_s: 60 } }] },
    },
    { match: { last_message: 'Find the high tide time' }, reply: { text: 'High tide is at 06:12.' } },
    { match: { last_message: 'Find the moon phase' }, reply: { text: 'The moon is waxing gibbous.' } },
    { match: { last_message: 'which model answers' }, reply: { text: 'Answered.' } },
  ],
};

describe(`a team of agents (${runtime})`, () => {
  let llm: FakeLlm;
  let mesh: E2eMesh;
  const env = { E2E_PROVIDER_KEY: 'sk-e2e-provider-key-team' };
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env });

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    mesh = await writeMesh({
      prefix: `e2e-team-${runtime.slice(0, 4)}`,
      providerUrl: llm.url,
      runtime,
      agents: ['researcher', 'writer'],
      tiers: { fast: 'upstream/gpt-fast' },
      agentFields: {
        researcher:
          'permissions: { blackboard: { write: ["research/*"] }, pubsub: { publish: ["research.*"] }, memory: { read: ["squad:research"], write: ["squad:research"] } }',
        writer:
          'permissions: { blackboard: { read: ["research/*"] }, pubsub: { subscribe: ["research.*"] } }',
      },
    });
    const start = await cli('start', '--detach');
    expect(start.code, start.stdout + start.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await cli('stop');
    await llm?.close();
    if (runtime === 'docker') await removeMesh(mesh.name);
  });

  it("wakes the writer, subscribed by its own tool, with the researcher's event", async () => {
    const listening = await cli('send', 'writer', 'listen for research');
    expect(listening.stdout, listening.stderr).toContain('Listening.');
    expect((await cli('pubsub', 'subscriptions')).stdout).toMatch(/writer {2}research\.\* {2}lane/);

    const filed = await cli('send', 'researcher', 'file the tides notes');
    expect(filed.stdout, filed.stderr).toContain('Filed and announced.');
    const drafted = () =>
      llm.requests.some((request) => JSON.stringify(request.body).includes('\\"high\\": \\"06:12\\"'));
    await waitUntil(drafted, 'the writer woken and reading the entry', 20_000);
    const woken = llm.requests
      .map((request) => JSON.stringify(request.body))
      .find((body) => body.includes('Event on topic \\"research.done\\"'));
    expect(woken).toContain('published by researcher');
  });

  it('fans out to two subagents in the container and answers from both', async () => {
    const calls = async () => {
      const costs = JSON.parse((await cli('costs', '--agent', 'researcher', '--json')).stdout) as {
        today: { calls: number }[];
      };
      return costs.today.reduce((sum, row) => sum + row.calls, 0);
    };
    const before = await calls();
    const sent = await cli('send', 'researcher', 'plan the beach day');
    expect(sent.stdout, sent.stderr).toContain('Go at 06:12 under a waxing gibbous moon.');
    const collected = llm.requests
      .flatMap((request) => (request.body as { messages: { role: string; content: string }[] }).messages)
      .filter((message) => message.role === 'tool')
      .map((message) => message.content)
      .find((content) => content.includes('waxing gibbous'));
    expect(collected).toContain('High tide is at 06:12.');
    // The children's calls went through the host with the researcher's token: its costs count the
    // lead's three (spawn, collect, answer) and one of each child's.
    expect((await calls()) - before).toBe(5);
    // The operator sees both children, finished, with the lead's /subagents listing.
    const listed = await cli('subagents', 'researcher');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/done .*Find the high tide time/);
    expect(listed.stdout).toMatch(/done .*Find the moon phase/);
  });

  it('switches the conversation to the fast tier with /model and back with /model reset', async () => {
    const modelsAsked = () =>
      llm.requests
        .filter((request) => JSON.stringify(request.body).includes('which model answers'))
        .map((request) => (request.body as { model: string }).model);
    const switched = await cli('send', 'writer', '/model fast');
    expect(switched.code, switched.stderr).toBe(0);
    expect(switched.stdout + switched.stderr).toContain('model for this conversation: fast');
    expect((await cli('send', 'writer', 'which model answers?')).stdout).toContain('Answered.');
    expect(modelsAsked()).toEqual(['gpt-fast']);
    await cli('send', 'writer', '/model reset');
    expect((await cli('send', 'writer', 'which model answers now?')).stdout).toContain('Answered.');
    expect(modelsAsked()).toEqual(['gpt-fast', 'gpt-test']);
  });

  it("gives the third survey's subagent the squad lessons the first two captured, within budget", async () => {
    for (const n of [1, 2, 3]) {
      const sent = await cli('send', 'researcher', `survey beach ${n}`);
      expect(sent.stdout, sent.stderr).toContain('Survey filed.');
    }
    const childPrompts = llm.requests
      .map((request) => (request.body as { messages: { role: string; content: string }[] }).messages)
      .map((messages) => messages.at(-1)?.content ?? '')
      .filter((content) => content.endsWith('Survey the beach and report.'));
    expect(childPrompts).toHaveLength(3);
    expect(childPrompts[0]).not.toContain('Lifeguards');
    expect(childPrompts[2]).toContain('<untrusted source="squad memory research">');
    expect(childPrompts[2]).toContain('[RESEARCHER] Lifeguards post the tide times at 08:00. (session sub-');
    expect(childPrompts[2]).toContain('## Session Memory');
    // After the third session the lesson two sessions agreed on is program memory.
    const listed = await cli('memory', 'squad:research', 'list');
    expect(listed.stdout).toMatch(/\[program\].*Lifeguards post the tide times at 08:00\.$/m);
  });
});
