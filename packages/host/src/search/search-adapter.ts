import type { SearchFreshness } from '@openlegion/protocol';
import type { FailureClass } from '../llm/index.js';
import type { ProviderRequest } from './provider-call.js';

/** What one provider is asked: the query as the agent wrote it (checked), a count, a freshness. */
export interface SearchQuery {
  query: string;
  count: number;
  freshness?: SearchFreshness | undefined;
}

/** A result as a provider gave it, before cleaning and deduplication. */
export interface RawResult {
  title: string;
  url: string;
  snippet: string;
  published?: string | undefined;
}

/** Where to send a provider's request, and its key (undefined for SearXNG). */
export interface ProviderTarget {
  baseUrl: string;
  apiKey: string | undefined;
}

/** One search API's wire format: how to ask, how to read the answer, what its refusals mean. */
export interface SearchAdapter {
  request(query: SearchQuery, target: ProviderTarget): ProviderRequest;
  /** The results of a 2xx answer's JSON; throws a `ProviderFailure` naming what is malformed. */
  parse(json: unknown): RawResult[];
  /**
   * What an error status means for this provider, when it differs from the usual reading (401/403
   * a refused key, 402 billing, 429 rate, 5xx server, other 4xx the request).
   */
  explain?(status: number, text: string): { failure: FailureClass; reason: string } | undefined;
}

/** The path `base` already has, joined with `path` (a base_url may sit under a prefix). */
export function endpoint(base: string, path: string): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url;
}
