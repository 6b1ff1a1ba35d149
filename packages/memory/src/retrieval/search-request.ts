import { OpenLegionError } from '@openlegion/protocol';
import { parseCategoryName } from '../model/category-rules.js';
import { parseScope } from '../model/scope.js';
import { MAX_LIMIT, MAX_QUERY_CHARS, type RetrievalConfig } from './retrieval-config.js';

/** A search as callers give it. */
export interface SearchRequest {
  query: string;
  /** Default 5, at most 100. */
  limit?: number;
  /** Scopes to search; the store's default scopes when left out. */
  scopes?: readonly string[];
  /** Only these categories (each must exist). */
  categories?: readonly string[];
  /** Per-search overrides of any retrieval knob. */
  config?: Partial<RetrievalConfig>;
  signal?: AbortSignal;
}

export const DEFAULT_SEARCH_LIMIT = 5;

/**
 * Validate a search request's query, limit, scopes and category names.
 *
 * @throws {OpenLegionError} `MEM_QUERY_INVALID`, `MEM_SCOPE_INVALID`, `MEM_CATEGORY_INVALID`.
 */
export function checkSearchRequest(request: SearchRequest, defaultScopes: readonly string[]) {
  const query = request.query.trim();
  if (query === '') throw new OpenLegionError('MEM_QUERY_INVALID', 'query must not be empty');
  if (query.length > MAX_QUERY_CHARS) {
    throw new OpenLegionError(
      'MEM_QUERY_INVALID',
      `query is ${query.length} characters; the limit is ${MAX_QUERY_CHARS}`,
      { details: { length: query.length, max: MAX_QUERY_CHARS } },
    );
  }
  const limit = request.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new OpenLegionError('MEM_QUERY_INVALID', `limit must be an integer from 1 to ${MAX_LIMIT}`);
  }
  const scopes = (request.scopes ?? defaultScopes).map(parseScope);
  const categories = request.categories?.map(parseCategoryName);
  return { query, limit, scopes, categories };
}
