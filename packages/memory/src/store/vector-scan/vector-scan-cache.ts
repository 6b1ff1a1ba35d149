import type { Database } from '@openlegion/infra/sqlite';
import { blobVector } from '../../embed/embedder.js';
import { prepared } from '../statement-cache.js';
import { QuantizedVectors } from './quantized-vectors.js';

/** Log entries kept: a connection further behind than this rebuilds from the items. */
const LOG_KEEP = 100_000;
/** Prune the log once every this many entries. */
const PRUNE_EVERY = 4_096;

interface VectorRow {
  id: number;
  scope: string;
  category: string;
  embedding: Buffer | null;
}

/**
 * A connection's in-memory copy of the store's item vectors ({@link QuantizedVectors}), for stores of
 * at least `minItems` items; smaller ones are searched by sqlite-vec alone and hold nothing in memory.
 *
 * It stays current with every connection's committed writes through `memory_vector_log`: each vector
 * change appends the item's id ({@link logVectorChange}), and before a search the entries past the
 * last one seen are replayed from the items themselves. A rolled-back write leaves no entry, so
 * nothing uncommitted is ever copied; inside a transaction the copy is not used at all.
 */
export class VectorScanCache {
  private index: QuantizedVectors | undefined;
  private embedderId: string | undefined;
  private seenSeq = 0;

  constructor(
    private readonly db: Database,
    private readonly minItems: number,
  ) {}

  /**
   * The in-memory vectors, current with every committed change, or undefined when the store is
   * smaller than `minItems` or a transaction is open (its uncommitted writes are not in the copy).
   */
  current(embedderId: string, dimensions: number): QuantizedVectors | undefined {
    if (this.db.inTransaction) return undefined;
    const stale = !this.index || this.embedderId !== embedderId || this.index.dimensions !== dimensions;
    if (stale) {
      if (this.largestItemId() < this.minItems) return undefined;
      return this.rebuild(embedderId, dimensions);
    }
    return this.catchUp(embedderId, dimensions);
  }

  /** Forget the copy (the vector tables were recreated). */
  clear(): void {
    this.index = undefined;
  }

  private catchUp(embedderId: string, dimensions: number): QuantizedVectors | undefined {
    const entries = prepared<[number], { seq: number; item_id: number }>(
      this.db,
      'SELECT seq, item_id FROM memory_vector_log WHERE seq > ? ORDER BY seq',
    ).all(this.seenSeq);
    const first = entries[0];
    if (!first) return this.index;
    // Entries were pruned before this connection saw them: replaying the rest would miss changes.
    if (first.seq !== this.seenSeq + 1) return this.rebuild(embedderId, dimensions);
    const ids = [...new Set(entries.map((entry) => entry.item_id))];
    const rows = prepared<[string], VectorRow>(
      this.db,
      'SELECT id, scope, category, embedding FROM memory_items WHERE id IN (SELECT value FROM json_each(?))',
    ).all(JSON.stringify(ids));
    const byId = new Map(rows.map((row) => [row.id, row]));
    const index = this.index as QuantizedVectors;
    for (const id of ids) {
      const row = byId.get(id);
      if (row?.embedding && row.embedding.byteLength === dimensions * 4) {
        index.set(id, blobVector(row.embedding), row.scope, row.category);
      } else index.delete(id);
    }
    this.seenSeq = (entries.at(-1) as { seq: number }).seq;
    return index;
  }

  private rebuild(embedderId: string, dimensions: number): QuantizedVectors {
    const index = new QuantizedVectors(dimensions);
    // One read transaction: the log position and the items are of the same snapshot.
    this.db.transaction(() => {
      this.seenSeq =
        prepared<[], { seq: number | null }>(this.db, 'SELECT max(seq) AS seq FROM memory_vector_log').get()
          ?.seq ?? 0;
      const rows = prepared<[], VectorRow>(
        this.db,
        'SELECT id, scope, category, embedding FROM memory_items WHERE embedding IS NOT NULL',
      ).iterate();
      for (const row of rows) {
        if (row.embedding?.byteLength === dimensions * 4) {
          index.set(row.id, blobVector(row.embedding), row.scope, row.category);
        }
      }
    })();
    this.index = index;
    this.embedderId = embedderId;
    return index;
  }

  private largestItemId(): number {
    return (
      prepared<[], { id: number | null }>(this.db, 'SELECT max(id) AS id FROM memory_items').get()?.id ?? 0
    );
  }
}

/** Record that item `id`'s vector changed (call in the transaction that changes it). */
export function logVectorChange(db: Database, id: number): void {
  const { lastInsertRowid } = prepared(db, 'INSERT INTO memory_vector_log (item_id) VALUES (?)').run(id);
  const seq = Number(lastInsertRowid);
  if (seq % PRUNE_EVERY === 0) {
    prepared(db, 'DELETE FROM memory_vector_log WHERE seq <= ?').run(seq - LOG_KEEP);
  }
}
