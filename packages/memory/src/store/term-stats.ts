import type { Database } from '@openlegion/infra/sqlite';
import { prepared } from './statement-cache.js';

const vocabularies = new WeakSet<Database>();

/**
 * In how many indexed items each term occurs (terms as FTS5 stores them: porter stems), read from an
 * `fts5vocab` view of `memory_fts` created in the connection's temp schema on first use.
 */
export function documentFrequencies(db: Database, terms: readonly string[]): Map<string, number> {
  if (!vocabularies.has(db)) {
    db.exec(
      "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memory_fts_vocab USING fts5vocab(main, memory_fts, 'row')",
    );
    vocabularies.add(db);
  }
  const lookup = prepared<[string], { doc: number }>(
    db,
    'SELECT doc FROM temp.memory_fts_vocab WHERE term = ?',
  );
  return new Map(terms.map((term) => [term, lookup.get(term)?.doc ?? 0]));
}

/**
 * How many items the full-text index holds, from FTS5's own statistics record (row 1 of
 * `memory_fts_data`, which starts with that count as a varint) so it costs no scan. 0 when unreadable.
 */
export function indexedCount(db: Database): number {
  const block = prepared<[], { block: Buffer }>(db, 'SELECT block FROM memory_fts_data WHERE id = 1').get()
    ?.block;
  if (!block) return 0;
  let value = 0;
  for (let i = 0; i < Math.min(block.length, 8); i++) {
    const byte = block[i] ?? 0;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return value;
  }
  return 0;
}
