import type { Database } from '@openlegion/infra/sqlite';
import { documentFrequencies, indexedCount } from '../store/term-stats.js';
import type { RetrievalConfig } from './retrieval-config.js';

/**
 * The query terms the full-text match runs on: a term found in more than
 * max(bm25CommonTermMinItems, bm25CommonTermShare · items) items is left out. Such a term's BM25 idf
 * is small (FTS5 gives log((N − n + ½)/(n + ½)), about 2.2 at a 10% share, against 7 to 11 for a
 * rare term, and nothing past 50%), yet its posting list is most of the cost of the query. When every
 * term is that common the rarest one is kept, so a query with words always matches something.
 */
export function selectiveTerms(
  db: Database,
  terms: readonly string[],
  config: Pick<RetrievalConfig, 'bm25CommonTermShare' | 'bm25CommonTermMinItems'>,
): string[] {
  if (terms.length <= 1 || config.bm25CommonTermShare >= 1) return [...terms];
  const items = indexedCount(db);
  const cutoff = commonTermCutoff(items, config);
  if (items <= cutoff) return [...terms];
  const frequencies = documentFrequencies(db, terms);
  const kept = terms.filter((term) => (frequencies.get(term) ?? 0) <= cutoff);
  if (kept.length > 0) return kept;
  const rarest = [...terms].sort((a, b) => (frequencies.get(a) ?? 0) - (frequencies.get(b) ?? 0))[0];
  return rarest === undefined ? [] : [rarest];
}

/** Document frequency above which a term counts as common (see {@link selectiveTerms}). */
export function commonTermCutoff(
  items: number,
  config: Pick<RetrievalConfig, 'bm25CommonTermShare' | 'bm25CommonTermMinItems'>,
): number {
  return config.bm25CommonTermShare >= 1
    ? Number.POSITIVE_INFINITY
    : Math.max(config.bm25CommonTermMinItems, config.bm25CommonTermShare * items);
}
