import type { MeshConfigInput } from '@openlegion/protocol';
import { type FakeSearchKind, type FakeSearchProvider, startFakeSearchProvider } from '@openlegion/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { costsFeature } from '../costs/index.js';
import { environmentSecrets } from '../secrets/index.js';
import { searchFeature } from './index.js';

const KEYS = { BRAVE_API_KEY: 'brave-key-123', TAVILY_API_KEY: 'tvly-key-456' };
const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((thing) => thing.close()));
});

async function fake(kind: FakeSearchKind): Promise<FakeSearchProvider> {
  const provider = await startFakeSearchProvider({
    kind,
    ...(kind === 'brave'
      ? { apiKey: KEYS.BRAVE_API_KEY }
      : kind === 'tavily'
        ? { apiKey: KEYS.TAVILY_API_KEY }
        : {}),
  });
  running.push(provider);
  return provider;
}

function providerConfig(provider: FakeSearchProvider) {
  return {
    kind: provider.kind,
    base_url: provider.baseUrl,
    ...(provider.kind === 'brave' ? { api_key: 'vault:BRAVE_API_KEY' } : {}),
    ...(provider.kind === 'tavily' ? { api_key: 'vault:TAVILY_API_KEY' } : {}),
  };
}

async function start(
  providers: FakeSearchProvider[],
  options: { search?: Record<string, unknown>; secrets?: Record<string, string>; budget?: number } = {},
) {
  const config: MeshConfigInput = {
    llm: { providers: { openai: {} } },
    agents: {
      researcher: {
        permissions: { search: true },
        ...(options.budget === undefined ? {} : { budget: { daily_usd: options.budget } }),
      },
      writer: {},
    },
    search: {
      providers: Object.fromEntries(providers.map((provider) => [provider.kind, providerConfig(provider)])),
      ...options.search,
    } as MeshConfigInput['search'],
  };
  const host: FeatureTestHost = await startFeatureTestHost([costsFeature(), searchFeature()], config, {
    secrets: environmentSecrets(options.secrets ?? KEYS),
  });
  running.push({ close: () => host.stop() });
  const search = (body: Record<string, unknown>, agent = 'researcher') =>
    host.app.inject({ method: 'POST', url: '/mesh/search', headers: host.agentAuth(agent), payload: body });
  return { host, search };
}

describe('POST /mesh/search, one provider at a time', () => {
  it.each(['searxng', 'brave', 'tavily'] as const)(
    'returns %s results normalised, each naming its provider',
    async (kind) => {
      const provider = await fake(kind);
      const { search } = await start([provider]);
      const answer = await search({ query: 'sqlite vec', count: 3 });
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toMatchObject({
        query: 'sqlite vec',
        providers: [kind],
        cached: false,
        skipped: [],
      });
      expect(answer.json().results).toEqual(
        [1, 2, 3].map((n) => ({
          title: `sqlite vec — result ${n}`,
          url: `https://example.org/sqlite-vec/${n}`,
          snippet: `About sqlite vec: the ${['first', 'second', 'third'][n - 1]} page found.`,
          published: expect.stringContaining(`2026-0${n}-15`),
          provider: kind,
        })),
      );
    },
  );

  it('asks SearXNG for JSON, with the query and the time range', async () => {
    const provider = await fake('searxng');
    const { search } = await start([provider]);
    await search({ query: 'tides', freshness: 'week' });
    expect(provider.requests[0]).toMatchObject({
      method: 'GET',
      path: '/search',
      params: { q: 'tides', format: 'json', time_range: 'week' },
    });
  });

  it('sends Brave its key in X-Subscription-Token, the count and the freshness', async () => {
    const provider = await fake('brave');
    const { search } = await start([provider]);
    await search({ query: 'tides', count: 2, freshness: 'month' });
    expect(provider.requests[0]?.params).toEqual({ q: 'tides', count: '2', freshness: 'pm' });
    expect(provider.requests[0]?.headers['x-subscription-token']).toBe(KEYS.BRAVE_API_KEY);
  });

  it('sends Tavily its key as a bearer token and max_results in the JSON body', async () => {
    const provider = await fake('tavily');
    const { search } = await start([provider]);
    await search({ query: 'tides', count: 4, freshness: 'day' });
    expect(provider.requests[0]?.headers.authorization).toBe(`Bearer ${KEYS.TAVILY_API_KEY}`);
    expect(provider.requests[0]?.body).toEqual({
      query: 'tides',
      max_results: 4,
      search_depth: 'basic',
      time_range: 'day',
    });
  });

  it('lowers a count past search.max_results to it', async () => {
    const provider = await fake('brave');
    const { search } = await start([provider], { search: { max_results: 7 } });
    expect((await search({ query: 'tides', count: 500 })).statusCode).toBe(200);
    expect(provider.requests[0]?.params.count).toBe('7');
  });
});

describe('failover between search providers', () => {
  it('moves on from a provider answering 5xx and sets it aside for a minute', async () => {
    const brave = await fake('brave');
    const tavily = await fake('tavily');
    brave.setFault('server-error');
    const { host, search } = await start([brave, tavily]);
    const first = (await search({ query: 'one' })).json();
    expect(first.providers).toEqual(['tavily']);
    expect(first.skipped).toEqual([
      { provider: 'brave', reason: 'answered 503: {"error":"upstream overloaded"}' },
    ]);
    brave.setFault('none');
    await search({ query: 'two' });
    expect(brave.requests).toHaveLength(1);
    host.clock.advance(61_000);
    expect((await search({ query: 'three' })).json().providers).toEqual(['brave']);
  });

  it('marks a provider whose key is refused misconfigured and tells the operator', async () => {
    const tavily = await fake('tavily');
    const searxng = await fake('searxng');
    const { host, search } = await start([tavily, searxng], {
      secrets: { ...KEYS, TAVILY_API_KEY: 'tvly-wrong' },
    });
    const answer = (await search({ query: 'tides' })).json();
    expect(answer.providers).toEqual(['searxng']);
    expect(answer.skipped[0].reason).toBe(
      'refused its key (401: {"detail":{"error":"Unauthorized: missing or invalid API key."}})',
    );
    expect(host.warnings).toEqual([
      'search provider "tavily" (tavily) refused its key (401: {"detail":{"error":"Unauthorized: missing or invalid API key."}}); it is set aside for 60 min: fix search.providers.tavily in mesh.yaml or its key in the vault',
    ]);
  });

  it("reads Brave's 422 SUBSCRIPTION_TOKEN_INVALID as a refused key", async () => {
    const brave = await fake('brave');
    const { host, search } = await start([brave], { secrets: { BRAVE_API_KEY: 'nope' } });
    const refused = await search({ query: 'tides' });
    expect(refused.statusCode).toBe(503);
    expect(refused.json().error).toMatchObject({
      code: 'SEARCH_UNAVAILABLE',
      retryable: true,
      message: 'no search provider answered: brave: refused its key (422 SUBSCRIPTION_TOKEN_INVALID)',
    });
    expect(host.warnings[0]).toContain('search provider "brave" (brave) refused its key');
  });

  it('never calls a provider whose key is not in the vault, and says how to set it', async () => {
    const brave = await fake('brave');
    const searxng = await fake('searxng');
    const { host, search } = await start([brave, searxng], { secrets: {} });
    const answer = (await search({ query: 'tides' })).json();
    expect(answer.providers).toEqual(['searxng']);
    expect(brave.requests).toHaveLength(0);
    expect(answer.skipped[0]).toEqual({
      provider: 'brave',
      reason: 'its key vault:BRAVE_API_KEY is not set: export BRAVE_API_KEY in the host environment',
    });
    expect(host.warnings).toEqual([
      'search provider "brave" (brave) its key vault:BRAVE_API_KEY is not set: export BRAVE_API_KEY in the host environment; until then it is skipped',
    ]);
    await search({ query: 'again' });
    expect(host.warnings).toHaveLength(1);
  });

  it('uses a key as soon as it is set, without waiting for a cooldown', async () => {
    const brave = await fake('brave');
    const searxng = await fake('searxng');
    const env: Record<string, string> = {};
    const { search } = await start([brave, searxng], { secrets: env });
    expect((await search({ query: 'one' })).json().providers).toEqual(['searxng']);
    env.BRAVE_API_KEY = KEYS.BRAVE_API_KEY;
    expect((await search({ query: 'two' })).json().providers).toEqual(['brave']);
  });

  it('gives up on a provider that does not answer within search.timeout_ms', async () => {
    const searxng = await fake('searxng');
    const brave = await fake('brave');
    searxng.setFault('timeout');
    const { search } = await start([searxng, brave], { search: { timeout_ms: 300 } });
    const answer = (await search({ query: 'tides' })).json();
    expect(answer.providers).toEqual(['brave']);
    expect(answer.skipped[0].reason).toMatch(/^127\.0\.0\.1:\d+ did not answer within 0\.3 s$/);
  });

  it.each([
    ['brave', 'malformed', 'answered JSON that is not a Brave search answer (web.results.0.url: '],
    ['searxng', 'malformed', 'answered JSON that is not a SearXNG search answer (results: '],
    ['tavily', 'not-json', 'answered 200 with something that is not JSON: "<!DOCTYPE html>'],
  ] as const)('moves on from %s answering %s, naming what is wrong', async (kind, fault, reason) => {
    const broken = await fake(kind);
    const other = await fake(kind === 'searxng' ? 'brave' : 'searxng');
    broken.setFault(fault);
    const { search } = await start([broken, other]);
    const answer = (await search({ query: 'tides' })).json();
    expect(answer.providers).toEqual([other.kind]);
    expect(answer.skipped[0].reason).toContain(reason);
  });

  it('drops an answer larger than its cap', async () => {
    const tavily = await fake('tavily');
    const searxng = await fake('searxng');
    tavily.setFault('huge');
    const { search } = await start([tavily, searxng]);
    const answer = (await search({ query: 'tides' })).json();
    expect(answer.providers).toEqual(['searxng']);
    expect(answer.skipped[0].reason).toMatch(/sent more than 2097152 bytes; the answer was dropped$/);
  });

  it('cools a rate-limited provider down for its Retry-After', async () => {
    const brave = await fake('brave');
    const searxng = await fake('searxng');
    brave.setFault('rate-limit');
    const { host, search } = await start([brave, searxng]);
    await search({ query: 'one' });
    brave.setFault('none');
    host.clock.advance(29_000);
    expect((await search({ query: 'two' })).json().providers).toEqual(['searxng']);
    host.clock.advance(2_000);
    expect((await search({ query: 'three' })).json().providers).toEqual(['brave']);
  });

  it('answers 503 SEARCH_UNAVAILABLE naming every provider and why when none answers', async () => {
    const searxng = await fake('searxng');
    const brave = await fake('brave');
    searxng.setFault('server-error');
    brave.setFault('server-error');
    const { search } = await start([searxng, brave]);
    const failed = await search({ query: 'tides' });
    expect(failed.statusCode).toBe(503);
    expect(failed.json().error.message).toBe(
      'no search provider answered: searxng: answered 503: Service Unavailable; brave: answered 503: {"error":"upstream overloaded"}',
    );
    const again = await search({ query: 'tides' });
    expect(again.json().error.message).toMatch(
      /^no search provider answered: searxng: cooling down until .+ after a server failure; brave: cooling down until/,
    );
  });

  it('stops at the first provider that answers, unless search.top_up is on', async () => {
    const searxng = await fake('searxng');
    const brave = await fake('brave');
    const { search } = await start([searxng, brave]);
    const answer = (await search({ query: 'tides', count: 10 })).json();
    expect(answer.providers).toEqual(['searxng']);
    expect(answer.results).toHaveLength(3);
    expect(brave.requests).toHaveLength(0);
  });

  it('with top_up, tops up a short answer from the next provider, without the same page twice', async () => {
    const searxng = await fake('searxng');
    const brave = await fake('brave');
    searxng.setPages(() => [
      { title: 'A', url: 'https://www.example.org/a/', snippet: 'a' },
      { title: 'B', url: 'https://example.org/b?utm_source=x', snippet: 'b' },
    ]);
    brave.setPages(() => [
      { title: 'A again', url: 'https://example.org/a', snippet: 'a' },
      { title: 'B again', url: 'http://EXAMPLE.org/b', snippet: 'b' },
      { title: 'C', url: 'https://example.org/c', snippet: 'c' },
      { title: 'D', url: 'https://example.org/d', snippet: 'd' },
    ]);
    const { search } = await start([searxng, brave], { search: { top_up: true } });
    const answer = (await search({ query: 'letters', count: 4 })).json();
    expect(answer.providers).toEqual(['searxng', 'brave']);
    expect(
      answer.results.map(
        (result: { title: string; provider: string }) => `${result.title}/${result.provider}`,
      ),
    ).toEqual(['A/searxng', 'B/searxng', 'C/brave', 'D/brave']);
  });
});

describe('the search cache', () => {
  it('answers the same query, count and freshness from the cache until its time is up', async () => {
    const brave = await fake('brave');
    const { host, search } = await start([brave], { search: { cache_ttl_s: 120 } });
    await search({ query: 'Tides  of the Moon' });
    const again = (await search({ query: 'tides of the moon' })).json();
    expect(again.cached).toBe(true);
    expect(brave.requests).toHaveLength(1);
    await search({ query: 'tides of the moon', count: 2 });
    expect(brave.requests).toHaveLength(2);
    host.clock.advance(121_000);
    expect((await search({ query: 'tides of the moon' })).json().cached).toBe(false);
    expect(brave.requests).toHaveLength(3);
  });
});

describe('bad input to /mesh/search', () => {
  it.each([
    ['', 'query is empty: say what to search for'],
    ['  \n\t ', 'query is empty: say what to search for'],
    [
      'x'.repeat(401),
      'query is 401 characters, more than the 400 a search takes: search for the key terms only',
    ],
  ])('refuses the query %j with SEARCH_QUERY_INVALID', async (query, message) => {
    const brave = await fake('brave');
    const { search } = await start([brave]);
    const refused = await search({ query });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatchObject({ code: 'SEARCH_QUERY_INVALID', message });
    expect(brave.requests).toHaveLength(0);
  });

  it('refuses an agent without permissions.search, naming the line to add', async () => {
    const brave = await fake('brave');
    const { search } = await start([brave]);
    const refused = await search({ query: 'tides' }, 'writer');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({
      code: 'MESH_FORBIDDEN',
      message:
        'agent "writer" may not search the web: add "search: true" under agents.writer.permissions in mesh.yaml',
    });
  });

  it('refuses an unknown field and a freshness it does not know', async () => {
    const brave = await fake('brave');
    const { search } = await start([brave]);
    expect((await search({ query: 'tides', site: 'x' })).json().error.code).toBe('REQUEST_INVALID');
    expect((await search({ query: 'tides', freshness: 'hour' })).json().error.code).toBe('REQUEST_INVALID');
  });

  it('answers SEARCH_NOT_CONFIGURED when mesh.yaml names no provider', async () => {
    const { search } = await start([]);
    const refused = await search({ query: 'tides' });
    expect(refused.statusCode).toBe(503);
    expect(refused.json().error).toMatchObject({
      code: 'SEARCH_NOT_CONFIGURED',
      message:
        'web search has no provider: add one under search.providers in mesh.yaml (a SearXNG instance, or a Brave or Tavily key; see docs/search.md)',
    });
  });
});

describe('search costs', () => {
  it('charges each answered call at its price, per agent, and shows it in /api/costs', async () => {
    const brave = await fake('brave');
    const { host, search } = await start([brave]);
    await search({ query: 'one' });
    await search({ query: 'one' });
    await search({ query: 'two' });
    const today = async () =>
      (await host.app.inject({ method: 'GET', url: '/api/costs', headers: host.operatorAuth })).json().today;
    // The usage log commits off the request's path; the rows show once written.
    await expect.poll(today).toEqual([
      {
        agent: 'researcher',
        billed_to: 'researcher',
        model: 'search/brave',
        calls: 2,
        prompt_tokens: 0,
        completion_tokens: 0,
        cost_usd: 0.01,
      },
    ]);
  });

  it('charges nothing for a failed call and refuses a search past the budget', async () => {
    const brave = await fake('brave');
    const { host, search } = await start([brave], { budget: 0.004 });
    const refused = await search({ query: 'one' });
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error.code).toBe('BUDGET_EXCEEDED');
    expect(brave.requests).toHaveLength(0);
    const costs = await host.app.inject({ method: 'GET', url: '/api/costs', headers: host.operatorAuth });
    expect(costs.json().today).toEqual([]);
  });
});
