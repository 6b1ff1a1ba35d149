import { describe, expect, it } from 'vitest';
import { meshConfigSchema } from './mesh-config.js';

const minimal = { llm: { providers: { openai: {} } }, agents: { a: {} } };

function issues(search: unknown) {
  const result = meshConfigSchema.safeParse({ ...minimal, search });
  return result.success ? [] : result.error.issues.map(({ path, message }) => ({ path, message }));
}

describe('mesh.yaml search:', () => {
  it('has no provider, a 5 minute cache of 500 answers and a 10 s timeout by default', () => {
    expect(meshConfigSchema.parse(minimal).search).toEqual({
      providers: {},
      top_up: false,
      cache_ttl_s: 300,
      cache_entries: 500,
      timeout_ms: 10_000,
      max_results: 20,
    });
  });

  it('leaves agents without search permission by default', () => {
    expect(meshConfigSchema.parse(minimal).agents.a?.permissions.search).toBe(false);
  });

  it('takes the kind from a provider named after one', () => {
    expect(issues({ providers: { brave: { api_key: 'vault:BRAVE_API_KEY' } } })).toEqual([]);
  });

  it('refuses an unknown provider kind, naming the kinds', () => {
    expect(issues({ providers: { web: { kind: 'google' } } })).toEqual([
      {
        path: ['search', 'providers', 'web', 'kind'],
        message: 'unknown search provider kind "google": use searxng, brave, tavily',
      },
    ]);
  });

  it('asks for a kind when the name is not one', () => {
    expect(issues({ providers: { mine: { base_url: 'http://127.0.0.1:8888' } } })).toEqual([
      {
        path: ['search', 'providers', 'mine', 'kind'],
        message: 'set kind: searxng, brave, tavily ("mine" is not a kind by itself)',
      },
    ]);
  });

  it('refuses a keyed provider without api_key, saying how to set one', () => {
    expect(issues({ providers: { tavily: {} } })).toEqual([
      {
        path: ['search', 'providers', 'tavily', 'api_key'],
        message:
          'a tavily provider needs api_key: vault:TAVILY_API_KEY (then openlegion vault set TAVILY_API_KEY)',
      },
    ]);
  });

  it('refuses a key written into mesh.yaml', () => {
    expect(issues({ providers: { brave: { api_key: 'BSA-literal-key' } } })[0]).toMatchObject({
      path: ['search', 'providers', 'brave', 'api_key'],
      message: 'use a reference like vault:OPENAI_API_KEY, never the key itself',
    });
  });

  it('refuses a searxng provider without base_url', () => {
    expect(issues({ providers: { searxng: {} } })).toEqual([
      {
        path: ['search', 'providers', 'searxng', 'base_url'],
        message: 'a searxng provider needs base_url: your instance, e.g. http://127.0.0.1:8888',
      },
    ]);
  });

  it('refuses an order naming a provider that is not configured', () => {
    expect(
      issues({ providers: { searxng: { base_url: 'http://127.0.0.1:8888' } }, order: ['searxng', 'brave'] }),
    ).toEqual([
      {
        path: ['search', 'order', 1],
        message: 'search provider "brave" is not configured under search.providers (have: searxng)',
      },
    ]);
  });

  it('refuses a field it does not know', () => {
    expect(issues({ provider: 'brave' })[0]).toMatchObject({ path: ['search'] });
  });
});
