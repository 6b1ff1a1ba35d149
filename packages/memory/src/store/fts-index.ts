import type { Database } from '@openlegion/infra/sqlite';
import { placeholders } from './memory-db.js';
import { prepared } from './statement-cache.js';

/** One full-text hit: FTS5's BM25 made positive (higher is better). */
export interface TextHit {
  id: number;
  bm25: number;
}

/** How many more rows the unfiltered first pass takes than asked for, to leave room for the filter. */
const FIRST_PASS_FACTOR = 4;

/**
 * BM25 search over `memory_fts` (porter stemming, unicode61), limited to live items in the given
 * scopes and categories, with per-column weights for abstract, overview and content. `match` must be
 * a safe FTS5 expression (see `ftsQuery`).
 *
 * Two passes with the same result as one: the best `4 · limit` matches are ranked inside FTS5 alone
 * (no row lookups), then filtered by scope and category; only when fewer than `limit` survive that
 * filter does a second pass rank every match that passes it (a scope holding a small share of the store).
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
  const filter = `i.superseded_by IS NULL AND i.scope IN (${placeholders(scopes.length)}) ${categoryFilter}`;
  const filterParams = [...scopes, ...(categories ?? [])];
  const firstLimit = limit * FIRST_PASS_FACTOR;
  const ranked = prepared<unknown[], { id: number; score: number }>(
    db,
    `SELECT rowid AS id, bm25(memory_fts, ?, ?, ?) AS score FROM memory_fts
     WHERE memory_fts MATCH ? ORDER BY score LIMIT ?`,
  ).all(...columnWeights, match, firstLimit);
  if (ranked.length === 0) return [];
  const passing = new Set(
    prepared<unknown[], { id: number }>(
      db,
      `SELECT i.id FROM memory_items i WHERE i.id IN (SELECT value FROM json_each(?)) AND ${filter}`,
    )
      .all(JSON.stringify(ranked.map((row) => row.id)), ...filterParams)
      .map((row) => row.id),
  );
  const kept = ranked.filter((row) => passing.has(row.id));
  if (kept.length >= limit || ranked.length < firstLimit) {
    return kept.slice(0, limit).map((row) => ({ id: row.id, bm25: -row.score }));
  }
  return prepared<unknown[], { id: number; score: number }>(
    db,
    `SELECT f.rowid AS id, bm25(memory_fts, ?, ?, ?) AS score FROM memory_fts f
     JOIN memory_items i ON i.id = f.rowid
     WHERE memory_fts MATCH ? AND ${filter}
     ORDER BY score, f.rowid LIMIT ?`,
  )
    .all(...columnWeights, match, ...filterParams, limit)
    .map((row) => ({ id: row.id, bm25: -row.score }));
}
