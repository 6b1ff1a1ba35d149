import type { Database } from '@openlegion/infra/sqlite';
import { blobVector } from '../embed/embedder.js';
import type { MemoryItem, NormalizedFact } from '../model/memory-item.js';
import { ITEM_COLUMNS, type ItemRow, toMemoryItem } from './item-row.js';
import { placeholders } from './memory-db.js';
import { prepared } from './statement-cache.js';

/** What `list` filters on; every field optional. */
export interface ItemFilter {
  scopes?: readonly string[];
  categories?: readonly string[];
  /** Include items a newer version superseded (history). */
  includeSuperseded?: boolean;
  limit?: number;
  offset?: number;
}

/** An item as written: a fact plus the fields a store manages (all optional on import). */
export type ItemRecord = NormalizedFact &
  Partial<
    Pick<
      MemoryItem,
      'accessCount' | 'lastAccessedAt' | 'createdAt' | 'updatedAt' | 'version' | 'supersededBy'
    >
  >;

/**
 * Rows of `memory_items` and their full-text index, kept in step: every write here updates
 * `memory_fts` in the same statement sequence (callers wrap them in a transaction).
 */
export class ItemRepository {
  constructor(private readonly db: Database) {}

  insert(record: ItemRecord, now: number, id?: number): number {
    const result = prepared(
      this.db,
      `INSERT INTO memory_items (id, scope, category, abstract, overview, content, tier, temporal_type, importance,
           confidence, access_count, last_accessed_at, created_at, updated_at, source, source_ref, version, superseded_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id ?? null,
      record.scope,
      record.category,
      record.abstract,
      record.overview,
      record.content,
      record.tier,
      record.temporalType,
      record.importance,
      record.confidence,
      record.accessCount ?? 0,
      record.lastAccessedAt ?? null,
      record.createdAt ?? now,
      record.updatedAt ?? now,
      record.source,
      record.sourceRef,
      record.version ?? 1,
      record.supersededBy ?? null,
    );
    const newId = Number(result.lastInsertRowid);
    if ((record.supersededBy ?? null) === null) this.index(newId, record);
    return newId;
  }

  get(id: number): MemoryItem | undefined {
    const row = prepared<[number], ItemRow>(
      this.db,
      `SELECT ${ITEM_COLUMNS} FROM memory_items WHERE id = ?`,
    ).get(id);
    return row ? toMemoryItem(row) : undefined;
  }

  /** Items by id, in the order of `ids` (missing ones left out). */
  getMany(ids: readonly number[]): MemoryItem[] {
    if (ids.length === 0) return [];
    const rows = prepared<number[], ItemRow>(
      this.db,
      `SELECT ${ITEM_COLUMNS} FROM memory_items WHERE id IN (${placeholders(ids.length)})`,
    ).all(...ids);
    const byId = new Map(rows.map((row) => [row.id, toMemoryItem(row)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** Items by id with their stored vectors, in the order of `ids`, in one query. */
  getManyWithVectors(ids: readonly number[]): { item: MemoryItem; vector: Float32Array | undefined }[] {
    if (ids.length === 0) return [];
    const rows = prepared<[string], ItemRow & { embedding: Buffer | null }>(
      this.db,
      `SELECT ${ITEM_COLUMNS}, embedding FROM memory_items WHERE id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(ids));
    const byId = new Map(
      rows.map((row) => [
        row.id,
        { item: toMemoryItem(row), vector: row.embedding ? blobVector(row.embedding) : undefined },
      ]),
    );
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  list(filter: ItemFilter = {}): MemoryItem[] {
    const { where, params } = whereClause(filter);
    return prepared<unknown[], ItemRow>(
      this.db,
      `SELECT ${ITEM_COLUMNS} FROM memory_items ${where} ORDER BY id LIMIT ? OFFSET ?`,
    )
      .all(...params, filter.limit ?? -1, filter.offset ?? 0)
      .map(toMemoryItem);
  }

  count(filter: ItemFilter = {}): number {
    const { where, params } = whereClause(filter);
    return (
      prepared<unknown[], { n: number }>(this.db, `SELECT count(*) AS n FROM memory_items ${where}`).get(
        ...params,
      )?.n ?? 0
    );
  }

  /** Replace an item's text and scores, bumping its version, and re-index it. */
  rewrite(
    id: number,
    record: Pick<ItemRecord, 'abstract' | 'overview' | 'content' | 'importance' | 'confidence'>,
    now: number,
  ): void {
    prepared(
      this.db,
      `UPDATE memory_items SET abstract = ?, overview = ?, content = ?, importance = ?, confidence = ?,
           version = version + 1, updated_at = ? WHERE id = ?`,
    ).run(record.abstract, record.overview, record.content, record.importance, record.confidence, now, id);
    prepared(this.db, 'DELETE FROM memory_fts WHERE rowid = ?').run(id);
    this.index(id, record);
  }

  /** Mark `id` as replaced by `newerId`: kept as history, gone from search. */
  supersede(id: number, newerId: number, now: number): void {
    prepared(this.db, 'UPDATE memory_items SET superseded_by = ?, updated_at = ? WHERE id = ?').run(
      newerId,
      now,
      id,
    );
    prepared(this.db, 'DELETE FROM memory_fts WHERE rowid = ?').run(id);
  }

  delete(id: number): boolean {
    prepared(this.db, 'DELETE FROM memory_fts WHERE rowid = ?').run(id);
    return prepared(this.db, 'DELETE FROM memory_items WHERE id = ?').run(id).changes > 0;
  }

  recordAccess(id: number, now: number, tier: string): void {
    prepared(
      this.db,
      'UPDATE memory_items SET access_count = access_count + 1, last_accessed_at = ?, tier = ? WHERE id = ?',
    ).run(now, tier, id);
  }

  setTier(id: number, tier: string): void {
    prepared(this.db, 'UPDATE memory_items SET tier = ? WHERE id = ?').run(tier, id);
  }

  private index(id: number, record: Pick<ItemRecord, 'abstract' | 'overview' | 'content'>): void {
    prepared(this.db, 'INSERT INTO memory_fts (rowid, abstract, overview, content) VALUES (?, ?, ?, ?)').run(
      id,
      record.abstract,
      record.overview,
      record.content,
    );
  }
}

function whereClause(filter: ItemFilter): { where: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (!filter.includeSuperseded) conditions.push('superseded_by IS NULL');
  if (filter.scopes) {
    conditions.push(`scope IN (${placeholders(filter.scopes.length)})`);
    params.push(...filter.scopes);
  }
  if (filter.categories) {
    conditions.push(`category IN (${placeholders(filter.categories.length)})`);
    params.push(...filter.categories);
  }
  return { where: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', params };
}
