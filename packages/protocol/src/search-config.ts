import { z } from 'zod';
import { secretRef } from './config-fields.js';
import type { DeepReadonly } from './deep-readonly.js';

/** The web search providers the host can call for `web_search` (`POST /mesh/search`). */
export const SEARCH_PROVIDER_KINDS = ['searxng', 'brave', 'tavily'] as const;
export type SearchProviderKind = (typeof SEARCH_PROVIDER_KINDS)[number];

/**
 * What one request costs at each kind's public list price (USD), when mesh.yaml gives no
 * `price_usd_per_request`: Brave's paid Search plan is $5 per 1,000 requests, Tavily's
 * pay-as-you-go credit is $0.008 and a basic search takes one; SearXNG is self-hosted and free.
 */
export const SEARCH_DEFAULT_PRICE_USD: Readonly<Record<SearchProviderKind, number>> = {
  searxng: 0,
  brave: 0.005,
  tavily: 0.008,
};

/** The public endpoint of each keyed kind; SearXNG has none (it is the operator's own instance). */
export const SEARCH_DEFAULT_BASE_URL: Readonly<Record<SearchProviderKind, string | undefined>> = {
  searxng: undefined,
  brave: 'https://api.search.brave.com',
  tavily: 'https://api.tavily.com',
};

const providerName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]*$/i, 'search provider names are letters, digits, _ and -');

const searchProviderSchema = z
  .object({
    /** Defaults to the provider's name when that is a kind (`brave: {...}`). */
    kind: z
      .string()
      .refine((kind) => (SEARCH_PROVIDER_KINDS as readonly string[]).includes(kind), {
        error: (issue) =>
          `unknown search provider kind "${String(issue.input)}": use ${SEARCH_PROVIDER_KINDS.join(', ')}`,
      })
      .optional(),
    /** SearXNG: the instance (required). Brave, Tavily: a different endpoint than the public one. */
    base_url: z.url({ protocol: /^https?$/, error: 'base_url must be an http(s) URL' }).optional(),
    /** Brave and Tavily: a reference into the vault (`vault:BRAVE_API_KEY`), never the key itself. */
    api_key: secretRef.optional(),
    /** USD per request answered; default the kind's list price (see SEARCH_DEFAULT_PRICE_USD). */
    price_usd_per_request: z.number().min(0).max(10).optional(),
  })
  .strict();
export type SearchProviderConfig = DeepReadonly<z.infer<typeof searchProviderSchema>>;

/**
 * `search:` in mesh.yaml: the providers behind `web_search`, tried in order with failover (like
 * `llm.fallbacks`), results cached for a few minutes.
 */
export const searchConfigSchema = z
  .object({
    providers: z.record(providerName, searchProviderSchema).default({}),
    /**
     * The providers in the order they are tried; a provider cooling down after a failure is
     * skipped. Default: every provider, in the order mesh.yaml writes them.
     */
    order: z.array(providerName).optional(),
    /**
     * When the first provider that answers gives fewer results than asked, ask the next one for the
     * rest (duplicates by URL dropped). Off by default: it can charge a second provider for a search.
     */
    top_up: z.boolean().default(false),
    /** How long an answer is reused for the same query, count and freshness: 5 min, so a research turn's repeats are free and results stay fresh. */
    cache_ttl_s: z.number().int().min(0).max(86_400).default(300),
    /** Answers kept in the cache (least recently used go first): bounded, so queries cannot grow the host's memory. */
    cache_entries: z.number().int().min(0).max(100_000).default(500),
    /** Time one provider call may take before it counts as failed and the next is tried: 10 s, search APIs answer in about one. */
    timeout_ms: z.number().int().min(100).max(120_000).default(10_000),
    /** The most results one search returns, whatever `count` asks: 20 keeps a result list within a few thousand tokens. */
    max_results: z.number().int().min(1).max(50).default(20),
  })
  .strict()
  .superRefine((search, ctx) => {
    const names = Object.keys(search.providers);
    for (const [name, provider] of Object.entries(search.providers)) {
      const kind = searchProviderKind(name, provider);
      const at = (field: string) => ['providers', name, field];
      if (kind === undefined) {
        if (provider.kind === undefined)
          ctx.addIssue({
            code: 'custom',
            path: at('kind'),
            message: `set kind: ${SEARCH_PROVIDER_KINDS.join(', ')} ("${name}" is not a kind by itself)`,
          });
        continue;
      }
      if (kind === 'searxng' && !provider.base_url)
        ctx.addIssue({
          code: 'custom',
          path: at('base_url'),
          message: 'a searxng provider needs base_url: your instance, e.g. http://127.0.0.1:8888',
        });
      if (kind !== 'searxng' && !provider.api_key)
        ctx.addIssue({
          code: 'custom',
          path: at('api_key'),
          message: `a ${kind} provider needs api_key: vault:${kind.toUpperCase()}_API_KEY (then openlegion vault set ${kind.toUpperCase()}_API_KEY)`,
        });
    }
    for (const [i, name] of (search.order ?? []).entries())
      if (!names.includes(name))
        ctx.addIssue({
          code: 'custom',
          path: ['order', i],
          message: `search provider "${name}" is not configured under search.providers (have: ${names.join(', ') || 'none'})`,
        });
  });
export type SearchConfig = DeepReadonly<z.infer<typeof searchConfigSchema>>;

/** The kind of a provider: its `kind`, else its name when that is a kind; undefined when neither is. */
export function searchProviderKind(
  name: string,
  provider: SearchProviderConfig,
): SearchProviderKind | undefined {
  const kind = provider.kind ?? name;
  return (SEARCH_PROVIDER_KINDS as readonly string[]).includes(kind)
    ? (kind as SearchProviderKind)
    : undefined;
}
