import type { Database } from '@openlegion/infra/sqlite';
import { prepared } from './statement-cache.js';

const vocabularies = new WeakSet<Database>();
/** Most cached frequencies per connection before the cache starts over. */
const MAX_CACHED_TERMS = 20_000;
const cachedFrequencies = new WeakMap<Database, { structure: Buffer; byTerm: Map<string, number> }>();

/**
 * In how many indexed items each term occurs (terms as FTS5 stores them: porter stems), read from an
 * `fts5vocab` view of `memory_fts` created in the connection's temp schema on first use, and cached
 * until the index changes.
 */
export function documentFrequencies(db: Database, terms: readonly string[]): Map<string, number> {
  if (!vocabularies.has(db)) {
    db.exec(
      "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memory_fts_vocab USING fts5vocab(main, memory_fts, 'row')",
    );
    vocabularies.add(db);
  }
  const cache = frequencyCache(db);
  const lookup = prepared<[string], { doc: number }>(
    db,
    'SELECT doc FROM temp.memory_fts_vocab WHERE term = ?',
  );
  return new Map(
    terms.map((term) => {
      let frequency = cache.get(term);
      if (frequency === undefined) {
        frequency = lookup.get(term)?.doc ?? 0;
        if (cache.size >= MAX_CACHED_TERMS) cache.clear();
        cache.set(term, frequency);
      }
      return [term, frequency];
    }),
  );
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

/**
 * The connection's cache of document frequencies, emptied whenever the full-text index changed:
 * counting a term's items walks its whole posting list, while the check reads one small record.
 * FTS5 rewrites its structure record (row 10 of `memory_fts_data`) on every change to the index,
 * by this connection or another, and on nothing else (access statistics do not touch it).
 */
function frequencyCache(db: Database): Map<string, number> {
  const structure =
    prepared<[], { block: Buffer }>(db, 'SELECT block FROM memory_fts_data WHERE id = 10').get()?.block ??
    Buffer.alloc(0);
  const cached = cachedFrequencies.get(db);
  if (cached?.structure.equals(structure)) return cached.byTerm;
  const fresh = { structure, byTerm: new Map<string, number>() };
  cachedFrequencies.set(db, fresh);
  return fresh.byTerm;
}
