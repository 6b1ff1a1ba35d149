import type { Database } from '@openlegion/infra/sqlite';
import { placeholders } from './memory-db.js';

/** One full-text hit: FTS5's BM25 made positive (higher is better). */
export interface TextHit {
  id: number;
  bm25: number;
}

/**
 * BM25 search over `memory_fts` (porter stemming, unicode61), limited to live items in the given
 * scopes and categories, with per-column weights for abstract, overview and content. `match` must be a safe FTS5 expression (see `ftsQuery`).
 */
export function searchText(
  db: Database,
  match: string,
  limit: number,
  scopes: readonly string[],
  categories?: readonly string[],
  columnWeights: readonly [number, number, number] = [1, 1, 1],
): TextHit[] {
  if (match === '' || scopes.length === 0) return [];
  const categoryFilter = categories ? `AND i.category IN (${placeholders(categories.length)})` : '';
  return db
    .prepare<unknown[], { id: number; score: number }>(
      `SELECT f.rowid AS id, bm25(memory_fts, ?, ?, ?) AS score FROM memory_fts f
       JOIN memory_items i ON i.id = f.rowid
       WHERE memory_fts MATCH ? AND i.superseded_by IS NULL AND i.scope IN (${placeholders(scopes.length)})
       ${categoryFilter}
       ORDER BY score LIMIT ?`,
    )
    .all(...columnWeights, match, ...scopes, ...(categories ?? []), limit)
    .map((row) => ({ id: row.id, bm25: -row.score }));
}
