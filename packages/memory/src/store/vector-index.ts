import type { Database } from '@openlegion/infra/sqlite';
import { OpenLegionError } from '@openlegion/protocol';
import { blobVector, dot, vectorBlob } from '../embed/embedder.js';
import { placeholders } from './memory-db.js';
import { prepared } from './statement-cache.js';
import { logVectorChange, VectorScanCache } from './vector-scan/vector-scan-cache.js';

/**
 * Stores of at least this many items search an in-memory int8 copy of their vectors (vector-scan/)
 * instead of sqlite-vec's KNN: 256 bytes per 256-dimension item buys ~20× faster search at 100k.
 */
export const DEFAULT_VECTOR_SCAN_MIN_ITEMS = 4_096;
/** The in-memory scan's similarities are estimates: this many more are rescored from the stored vectors. */
const rescorePool = (k: number) => 2 * k + 8;

/** Which embedder built the vectors in a store, recorded at its first embedding. */
export interface EmbeddingState {
  embedderId: string;
  dimensions: number;
}

/** One nearest neighbour: cosine similarity in [-1, 1]. */
export interface VectorHit {
  id: number;
  similarity: number;
}

/**
 * The sqlite-vec side of a store: `memory_vec` (items, with scope and category as metadata columns so
 * KNN filters while it searches) and `memory_category_vec` (category centroids). Both are created
 * when the dimension becomes known, and recreated by {@link VectorIndex.reset} for a reembed.
 */
export class VectorIndex {
  private readonly scan: VectorScanCache;

  constructor(
    private readonly db: Database,
    scanMinItems = DEFAULT_VECTOR_SCAN_MIN_ITEMS,
  ) {
    this.scan = new VectorScanCache(db, scanMinItems);
  }

  /** The recorded embedder, or undefined when nothing was embedded yet. */
  state(): EmbeddingState | undefined {
    const rows = prepared<[], { key: string; value: string }>(
      this.db,
      "SELECT key, value FROM memory_meta WHERE key IN ('embedder_id', 'embedding_dimensions')",
    ).all();
    const byKey = new Map(rows.map((row) => [row.key, row.value]));
    const embedderId = byKey.get('embedder_id');
    const dimensions = Number(byKey.get('embedding_dimensions'));
    return embedderId && dimensions > 0 ? { embedderId, dimensions } : undefined;
  }

  /**
   * Record `embedderId`/`dimensions` on first use and create the tables; afterwards refuse any other.
   *
   * @throws {OpenLegionError} `MEM_EMBEDDING_MISMATCH` naming both embedders.
   */
  ensure(embedderId: string, dimensions: number): void {
    const recorded = this.state();
    if (!recorded) {
      this.reset(embedderId, dimensions);
      return;
    }
    if (recorded.embedderId === embedderId && recorded.dimensions === dimensions) return;
    throw new OpenLegionError(
      'MEM_EMBEDDING_MISMATCH',
      `memory store was built with ${recorded.embedderId} (${recorded.dimensions} dimensions) but the embedder is ` +
        `${embedderId} (${dimensions} dimensions); run reembed to rebuild the vectors`,
      { details: { recorded, current: { embedderId, dimensions } } },
    );
  }

  /** Drop the vector tables and create them empty for a new embedder. */
  reset(embedderId: string, dimensions: number): void {
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 8192) {
      throw new OpenLegionError(
        'MEM_EMBEDDER_UNAVAILABLE',
        `embedder ${embedderId} gave ${dimensions} dimensions`,
      );
    }
    this.db.exec(`DROP TABLE IF EXISTS memory_vec; DROP TABLE IF EXISTS memory_category_vec;
      CREATE VIRTUAL TABLE memory_vec USING vec0(
        embedding float[${dimensions}] distance_metric=cosine, scope text, category text);
      CREATE VIRTUAL TABLE memory_category_vec USING vec0(embedding float[${dimensions}] distance_metric=cosine);
      UPDATE memory_items SET embedding = NULL; UPDATE memory_categories SET vector_sum = NULL;`);
    this.scan.clear();
    const put = prepared(this.db, 'INSERT OR REPLACE INTO memory_meta (key, value) VALUES (?, ?)');
    put.run('embedder_id', embedderId);
    put.run('embedding_dimensions', String(dimensions));
  }

  /** Replace an item's vector (delete, then {@link VectorIndex.insert}). */
  upsert(id: number, vector: Float32Array, scope: string, category: string): void {
    prepared(this.db, 'DELETE FROM memory_vec WHERE rowid = ?').run(BigInt(id));
    this.insert(id, vector, scope, category);
  }

  /** Add the vector of an item that has none yet (a new row): no delete to look up first. */
  insert(id: number, vector: Float32Array, scope: string, category: string): void {
    const blob = vectorBlob(vector);
    prepared(this.db, 'INSERT INTO memory_vec (rowid, embedding, scope, category) VALUES (?, ?, ?, ?)').run(
      BigInt(id),
      blob,
      scope,
      category,
    );
    // A copy beside the row: reading 40 vectors by id from vec0 costs milliseconds, from here microseconds.
    prepared(this.db, 'UPDATE memory_items SET embedding = ? WHERE id = ?').run(blob, id);
    logVectorChange(this.db, id);
  }

  remove(id: number): void {
    if (!this.state()) return;
    prepared(this.db, 'DELETE FROM memory_vec WHERE rowid = ?').run(BigInt(id));
    prepared(this.db, 'UPDATE memory_items SET embedding = NULL WHERE id = ?').run(id);
    logVectorChange(this.db, id);
  }

  /** The `k` nearest live items within `scopes` (and `categories` when given). */
  knn(
    query: Float32Array,
    k: number,
    scopes: readonly string[],
    categories?: readonly string[],
  ): VectorHit[] {
    const state = this.state();
    if (!state || scopes.length === 0) return [];
    const scan = this.scan.current(state.embedderId, state.dimensions);
    if (scan) return this.rescored(query, scan.nearest(query, rescorePool(k), scopes, categories), k);
    const categoryFilter = categories ? `AND category IN (${placeholders(categories.length)})` : '';
    const rows = prepared<unknown[], { id: number; distance: number }>(
      this.db,
      `SELECT rowid AS id, distance FROM memory_vec WHERE embedding MATCH ? AND k = ?
         AND scope IN (${placeholders(scopes.length)}) ${categoryFilter}`,
    ).all(vectorBlob(query), k, ...scopes, ...(categories ?? []));
    return rows.map((row) => ({ id: Number(row.id), similarity: 1 - row.distance }));
  }

  /** The `k` best of approximate hits by exact cosine with their stored vectors (gone ones dropped). */
  private rescored(query: Float32Array, hits: readonly VectorHit[], k: number): VectorHit[] {
    const stored = this.vectors(hits.map((hit) => hit.id));
    return [...stored]
      .map(([id, vector]) => ({ id, similarity: dot(query, vector) }))
      .sort((a, b) => b.similarity - a.similarity || a.id - b.id)
      .slice(0, k);
  }

  /** Stored vectors of the given items (those that have one). */
  vectors(ids: readonly number[]): Map<number, Float32Array> {
    const found = new Map<number, Float32Array>();
    if (!this.state() || ids.length === 0) return found;
    const rows = prepared<[string], { id: number; embedding: Buffer }>(
      this.db,
      'SELECT id, embedding FROM memory_items WHERE embedding IS NOT NULL AND id IN (SELECT value FROM json_each(?))',
    ).all(JSON.stringify(ids));
    for (const row of rows) found.set(Number(row.id), blobVector(row.embedding));
    return found;
  }

  upsertCategory(categoryId: number, centroid: Float32Array | undefined): void {
    if (!this.state()) return;
    prepared(this.db, 'DELETE FROM memory_category_vec WHERE rowid = ?').run(BigInt(categoryId));
    if (!centroid) return;
    prepared(this.db, 'INSERT INTO memory_category_vec (rowid, embedding) VALUES (?, ?)').run(
      BigInt(categoryId),
      vectorBlob(centroid),
    );
  }

  /** Category ids nearest to `query`, best first. */
  knnCategories(query: Float32Array, k: number): VectorHit[] {
    if (!this.state()) return [];
    return prepared<[Buffer, number], { id: number; distance: number }>(
      this.db,
      'SELECT rowid AS id, distance FROM memory_category_vec WHERE embedding MATCH ? AND k = ?',
    )
      .all(vectorBlob(query), k)
      .map((row) => ({ id: Number(row.id), similarity: 1 - row.distance }));
  }

  /** Which search {@link VectorIndex.knn} runs now, and how many vectors the in-memory copy holds. */
  searchMethod(): { method: 'sqlite-vec' | 'int8-scan'; copiedVectors: number } {
    const state = this.state();
    const scan = state && this.scan.current(state.embedderId, state.dimensions);
    return scan
      ? { method: 'int8-scan', copiedVectors: scan.size }
      : { method: 'sqlite-vec', copiedVectors: 0 };
  }

  /** How many items have a vector. */
  count(): number {
    if (!this.state()) return 0;
    return prepared<[], { n: number }>(this.db, 'SELECT count(*) AS n FROM memory_vec').get()?.n ?? 0;
  }
}
