import { z } from 'zod';

/** The agent's web search route on the host (agent token; the host calls the providers). */
export const SEARCH_PATH = '/mesh/search';

/** The longest query the host sends a provider (characters): Brave refuses past 400 too. */
export const SEARCH_QUERY_MAX_CHARS = 400;
/** Results when the request names no count. */
export const SEARCH_DEFAULT_COUNT = 5;

export const SEARCH_FRESHNESS = ['day', 'week', 'month', 'year'] as const;
export type SearchFreshness = (typeof SEARCH_FRESHNESS)[number];

/**
 * `POST /mesh/search`. The query's own bounds (empty, too long) are the host's to check, so their
 * refusal carries SEARCH_QUERY_INVALID and says what to do; here only its type and an outer cap
 * that keeps the body small. A count past `search.max_results` is lowered to it.
 */
export const searchRequestSchema = z
  .object({
    query: z.string().max(100_000),
    count: z.number().int().min(1).max(1_000).default(SEARCH_DEFAULT_COUNT),
    freshness: z.enum(SEARCH_FRESHNESS).optional(),
  })
  .strict();
export type SearchRequest = z.infer<typeof searchRequestSchema>;

/** One result, the same whichever provider gave it. */
export const searchResultSchema = z.object({
  title: z.string(),
  url: z.string(),
  snippet: z.string(),
  /** When the page was published, as the provider says it (ISO date when it gives one). */
  published: z.string().optional(),
  /** The mesh.yaml name of the provider that found it. */
  provider: z.string(),
});
export type SearchResult = z.infer<typeof searchResultSchema>;

/** The answer of `POST /mesh/search`. */
export const searchAnswerSchema = z.looseObject({
  query: z.string(),
  results: z.array(searchResultSchema),
  /** The providers that answered, in order. */
  providers: z.array(z.string()),
  /** Served from the host's cache (no provider was called, nothing was charged). */
  cached: z.boolean(),
  /** Providers that failed before one answered, each with why (for the model and the trace). */
  skipped: z.array(z.object({ provider: z.string(), reason: z.string() })).default([]),
});
export type SearchAnswer = z.infer<typeof searchAnswerSchema>;
