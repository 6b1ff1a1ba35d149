import type { Database } from '@openlegion/infra/sqlite';
import { OpenLegionError } from '@openlegion/protocol';
import { blobVector, normalizeInPlace, vectorBlob } from '../embed/embedder.js';
import { CATEGORY_DESCRIPTIONS } from '../model/category-rules.js';
import { prepared } from './statement-cache.js';
import type { VectorIndex } from './vector-index.js';

/** How many recent abstracts a category summary keeps (the summary is patched, never rebuilt). */
export const SUMMARY_ABSTRACTS = 12;
const SUMMARY_MAX_CHARS = 2_000;

/** A category as listed: built-in or created by the extractor. */
export interface MemoryCategory {
  id: number;
  name: string;
  builtin: boolean;
  description: string;
  summary: string;
  itemCount: number;
  updatedAt: number;
}

interface CategoryRow {
  id: number;
  name: string;
  builtin: number;
  description: string;
  summary: string;
  item_count: number;
  vector_sum: Buffer | null;
  updated_at: number;
}

/**
 * Categories and their summaries. Each summary is patched as items change: a new item's abstract is
 * prepended, the oldest falls off. Each category's embedding is the normalised sum of its items'
 * vectors (kept as a running sum), so adding or removing an item costs one vector addition.
 */
export class CategoryStore {
  /** Rows changed inside {@link CategoryStore.batch}, written once when it ends. */
  #pending: Map<string, CategoryRow> | undefined;

  constructor(
    private readonly db: Database,
    private readonly vectors: VectorIndex,
  ) {}

  list(): MemoryCategory[] {
    return prepared<[], CategoryRow>(this.db, 'SELECT * FROM memory_categories ORDER BY id')
      .all()
      .map(toCategory);
  }

  get(name: string): MemoryCategory | undefined {
    const row = prepared<[string], CategoryRow>(
      this.db,
      'SELECT * FROM memory_categories WHERE name = ?',
    ).get(name);
    return row ? toCategory(row) : undefined;
  }

  byIds(ids: readonly number[]): MemoryCategory[] {
    const all = new Map(this.list().map((category) => [category.id, category]));
    return ids.flatMap((id) => all.get(id) ?? []);
  }

  /** @throws {OpenLegionError} `MEM_CATEGORY_UNKNOWN` naming the categories there are. */
  require(name: string): MemoryCategory {
    const category = this.get(name);
    if (category) return category;
    const names = this.list().map((entry) => entry.name);
    throw new OpenLegionError(
      'MEM_CATEGORY_UNKNOWN',
      `no memory category "${name}"; have: ${names.join(', ')}`,
      {
        details: { category: name, categories: names },
      },
    );
  }

  /** The category's row, created (not built-in) when it is new. */
  ensure(name: string, now: number): MemoryCategory {
    prepared(
      this.db,
      'INSERT INTO memory_categories (name, builtin, description, summary, updated_at) VALUES (?, 0, ?, ?, ?) ON CONFLICT (name) DO NOTHING',
    ).run(name, CATEGORY_DESCRIPTIONS[name] ?? '', '', now);
    return this.require(name);
  }

  /** An item joined the category: count it, patch the summary, add its vector to the centroid. */
  added(name: string, abstract: string, vector: Float32Array | undefined, now: number): void {
    const row = this.row(name);
    const lines = [abstract.replaceAll('\n', ' '), ...row.summary.split('\n').filter((line) => line !== '')];
    const summary = lines.slice(0, SUMMARY_ABSTRACTS).join('\n').slice(0, SUMMARY_MAX_CHARS);
    this.update(
      row,
      row.item_count + 1,
      summary,
      vector ? addVectors(row.vector_sum, vector, 1) : row.vector_sum,
      now,
    );
  }

  /** An item left the category: uncount it and take its vector out of the centroid. */
  removed(name: string, abstract: string, vector: Float32Array | undefined, now: number): void {
    const row = this.row(name);
    const summary = row.summary
      .split('\n')
      .filter((line) => line !== abstract.replaceAll('\n', ' '))
      .join('\n');
    const count = Math.max(0, row.item_count - 1);
    const sum = count === 0 ? null : vector ? addVectors(row.vector_sum, vector, -1) : row.vector_sum;
    this.update(row, count, summary, sum, now);
  }

  /** Set a category's centroid from all its items' vectors (after a reembed). */
  rebuildCentroid(name: string, vectors: readonly Float32Array[], now: number): void {
    const row = this.row(name);
    let sum: Buffer | null = null;
    for (const vector of vectors) sum = addVectors(sum, vector, 1);
    this.update(row, row.item_count, row.summary, sum, now);
  }

  /**
   * Run `work` (inside the caller's transaction) with category changes collected in memory and
   * written once per category at the end: a batch of 1,000 items then rewrites one row and one
   * centroid instead of 1,000. Reads of a category inside `work` see its pending state.
   */
  batch<T>(work: () => T): T {
    if (this.#pending) return work();
    const pending = new Map<string, CategoryRow>();
    this.#pending = pending;
    let result: T;
    try {
      result = work();
    } finally {
      this.#pending = undefined;
    }
    for (const row of pending.values()) this.write(row);
    return result;
  }

  private row(name: string): CategoryRow {
    const pending = this.#pending?.get(name);
    if (pending) return pending;
    this.ensure(name, 0);
    const row = prepared<[string], CategoryRow>(
      this.db,
      'SELECT * FROM memory_categories WHERE name = ?',
    ).get(name);
    if (!row) throw new Error(`category ${name} vanished`);
    return row;
  }

  private update(row: CategoryRow, count: number, summary: string, sum: Buffer | null, now: number): void {
    const changed = { ...row, item_count: count, summary, vector_sum: sum, updated_at: now };
    if (this.#pending) this.#pending.set(row.name, changed);
    else this.write(changed);
  }

  private write(row: CategoryRow): void {
    const { item_count: count, summary, vector_sum: sum, updated_at: now } = row;
    prepared(
      this.db,
      'UPDATE memory_categories SET item_count = ?, summary = ?, vector_sum = ?, updated_at = ? WHERE id = ?',
    ).run(count, summary, sum, now, row.id);
    const centroid = sum ? normalizeInPlace(new Float32Array(blobVector(sum))) : undefined;
    // A sum that cancelled out to zero has no direction to search by.
    this.vectors.upsertCategory(row.id, centroid?.some((value) => value !== 0) ? centroid : undefined);
  }
}

function addVectors(sum: Buffer | null, vector: Float32Array, sign: 1 | -1): Buffer {
  const total =
    sum && sum.byteLength === vector.byteLength
      ? new Float32Array(blobVector(sum)) // a copy: the running sum is rewritten, never the row it came from
      : new Float32Array(vector.length);
  for (let i = 0; i < total.length; i++) total[i] = (total[i] ?? 0) + sign * (vector[i] ?? 0);
  return vectorBlob(total);
}

function toCategory(row: CategoryRow): MemoryCategory {
  return {
    id: row.id,
    name: row.name,
    builtin: row.builtin === 1,
    description: row.description,
    summary: row.summary,
    itemCount: row.item_count,
    updatedAt: row.updated_at,
  };
}
