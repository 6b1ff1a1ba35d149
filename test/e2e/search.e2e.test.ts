import {
  type FakeLlm,
  type FakeSearchProvider,
  startFakeLlm,
  startFakeSearchProvider,
} from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';

/**
 * `web_search` across the whole mesh: the agent's tool calls the host, the host calls a search
 * provider (a fake Brave on loopback, in Brave's wire format) with the key it holds, the model gets
 * the numbered results, and `costs` counts the search. An agent without `permissions.search` is
 * refused with the line to add.
 */
const PROVIDER_KEY = 'sk-e2e-provider-key-search';
const BRAVE_KEY = 'BSA-e2e-brave-key-7c1e';

const script = {
  rules: [
    { match: { tool_result: 'tides — result 1' }, reply: { text: 'Found https://example.org/tides/1' } },
    { match: { tool_result: 'may not search the web' }, reply: { text: 'Search was refused.' } },
    {
      match: { last_message: 'find sources on tides' },
      reply: { tool_calls: [{ name: 'web_search', arguments: { query: 'tides', count: 2 } }] },
    },
  ],
};

// With Docker, research.e2e.test.ts searches from a hardened container (and is refused without the
// permission); here the process runtime, which runs without Docker too.
const runtimes: ('docker' | 'process')[] = ['process'];

describe.each(runtimes)('web_search with the %s runtime', (runtime) => {
  let llm: FakeLlm;
  let brave: FakeSearchProvider;
  let mesh: E2eMesh;
  const env = { E2E_PROVIDER_KEY: PROVIDER_KEY, E2E_BRAVE_KEY: BRAVE_KEY };
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env });

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    brave = await startFakeSearchProvider({ kind: 'brave', apiKey: BRAVE_KEY });
    mesh = await writeMesh({
      prefix: `e2e-search-${runtime.slice(0, 4)}`,
      providerUrl: llm.url,
      runtime,
      agentFields: { alpha: 'permissions: { search: true }' },
      extra: `search:\n  providers:\n    brave: { base_url: "${brave.baseUrl}", api_key: env:E2E_BRAVE_KEY }\n`,
    });
    const start = await cli('start', '--detach');
    expect(start.code, start.stdout + start.stderr).toBe(0);
  });

  afterAll(async () => {
    await cli('stop');
    await llm?.close();
    await brave?.close();
    if (runtime === 'docker') await removeMesh(mesh.name);
  });

  it('searches through the host, with the key only the host holds, and counts the search in costs', async () => {
    const sent = await cli('send', 'alpha', 'find sources on tides');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('Found https://example.org/tides/1');
    expect(brave.requests).toHaveLength(1);
    expect(brave.requests[0]?.params).toEqual({ q: 'tides', count: '2' });
    expect(brave.requests[0]?.headers['x-subscription-token']).toBe(BRAVE_KEY);
    const toolResult = llm.requests
      .flatMap((request) => (request.body as { messages: { role: string; content: string }[] }).messages)
      .find((message) => message.role === 'tool');
    expect(toolResult?.content).toContain('1. tides — result 1\n   https://example.org/tides/1');
    const costs = JSON.parse((await cli('costs', '--agent', 'alpha', '--json')).stdout) as {
      today: { model: string; calls: number; cost_usd: number }[];
    };
    expect(costs.today).toContainEqual(
      expect.objectContaining({ model: 'search/brave', calls: 1, cost_usd: 0.005 }),
    );
  });

  it('refuses an agent without permissions.search, telling the model the line to add', async () => {
    const sent = await cli('send', 'beta', 'find sources on tides');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('Search was refused.');
    const refusal = llm.requests
      .flatMap((request) => (request.body as { messages: { role: string; content: string }[] }).messages)
      .find((message) => message.role === 'tool' && message.content.includes('MESH_FORBIDDEN'));
    expect(refusal?.content).toContain(
      'agent "beta" may not search the web: add "search: true" under agents.beta.permissions in mesh.yaml',
    );
    expect(brave.requests).toHaveLength(1);
  });
});
