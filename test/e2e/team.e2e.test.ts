import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerAnswers, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';
import { waitUntil } from './support/wait-until.js';

/**
 * A team in hardened containers (issue 23): docs/mesh.md's example as written. The writer
 * subscribes with its own `subscribe` tool; the researcher's `publish` wakes it with the event as a
 * message in its lane; the writer reads the blackboard entry the event names and drafts.
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
      agentFields: {
        researcher:
          'permissions: { blackboard: { write: ["research/*"] }, pubsub: { publish: ["research.*"] } }',
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
});
