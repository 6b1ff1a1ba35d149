import { contentTerms } from '../text/tokens.js';
import type { RetrievalConfig } from './retrieval-config.js';

/**
 * BM25 scaled into [0, 1] for fusion: relative to the best hit of this query, times the share of the
 * query's distinct terms the item contains. An item holding every query term and ranking first
 * scores 1 (an exact match); one matching half the terms scores at most 0.5, so the exact-match
 * floor is kept for items that really contain the query.
 */
export function normalizeBm25(
  raw: number,
  best: number,
  queryTerms: ReadonlySet<string>,
  text: string,
): number {
  if (best <= 0 || raw <= 0) return 0;
  if (queryTerms.size === 0) return raw / best;
  const itemTerms = new Set(contentTerms(text));
  let matched = 0;
  for (const term of queryTerms) if (itemTerms.has(term)) matched++;
  return (raw / best) * (matched / queryTerms.size);
}

/**
 * The hybrid score: weighted sum (not rank fusion) with the exact-match floor, clamped into
 * [fusedMin, 1]. A signal that did not run is null, and the other one is then the score; an item
 * the text search ran on but did not find has bm25 0.
 *
 * @example fuseScores(0.5, 0.8, config) // max(0.7·0.5 + 0.3·0.8, 0.92·0.8) = 0.736
 */
export function fuseScores(
  vector: number | null,
  bm25: number | null,
  config: Pick<
    RetrievalConfig,
    'vectorWeight' | 'bm25Weight' | 'exactMatchBm25' | 'exactMatchFactor' | 'fusedMin'
  >,
): number {
  let fused: number;
  if (vector === null) fused = bm25 ?? 0;
  else if (bm25 === null) fused = vector;
  else fused = config.vectorWeight * vector + config.bm25Weight * bm25;
  if (bm25 !== null && bm25 >= config.exactMatchBm25) fused = Math.max(fused, config.exactMatchFactor * bm25);
  return Math.min(1, Math.max(config.fusedMin, fused));
}
