import { TEMPORAL_VERSIONED } from '../model/category-rules.js';
import type { MemoryItem, NormalizedFact } from '../model/memory-item.js';
import type { ItemRecord } from '../store/item-repository.js';
import type { MemoryContext } from '../store/memory-context.js';

/**
 * Item writes that keep every index in step: the row, its FTS entry, its vector, and its category's
 * count, summary and centroid. Call inside a transaction.
 */
export function insertItem(
  context: MemoryContext,
  record: ItemRecord,
  vector: Float32Array | undefined,
  now: number,
  id?: number,
): number {
  const newId = context.items.insert(record, now, id);
  if ((record.supersededBy ?? null) !== null) {
    context.categories.ensure(record.category, now);
    return newId;
  }
  if (vector) context.vectors.insert(newId, vector, record.scope, record.category);
  context.categories.added(record.category, record.abstract, vector, now);
  return newId;
}

/** Delete an item and its index entries. False when there was no such item. */
export function removeItem(context: MemoryContext, item: MemoryItem, now: number): boolean {
  const vector = context.vectors.vectors([item.id]).get(item.id);
  context.vectors.remove(item.id);
  const removed = context.items.delete(item.id);
  if (removed && item.supersededBy === null)
    context.categories.removed(item.category, item.abstract, vector, now);
  return removed;
}

/** The text and scores of `target` after merging `fact` into it: content and overview grow, abstract stays. */
export function mergedFields(target: MemoryItem, fact: NormalizedFact): MergedFields {
  return {
    abstract: target.abstract,
    overview: target.overview.includes(fact.overview)
      ? target.overview
      : `${target.overview}\n${fact.overview}`.slice(0, 1_000),
    content: target.content.includes(fact.content) ? target.content : `${target.content}\n${fact.content}`,
    importance: Math.max(target.importance, fact.importance),
    confidence: Math.max(target.confidence, fact.confidence),
  };
}

export type MergedFields = Pick<
  MemoryItem,
  'abstract' | 'overview' | 'content' | 'importance' | 'confidence'
>;

/** Rewrite a stored item with merged fields and its new vector, re-indexing it. */
export function mergeInto(
  context: MemoryContext,
  target: MemoryItem,
  merged: MergedFields,
  newVector: Float32Array | undefined,
  now: number,
): void {
  const oldVector = context.vectors.vectors([target.id]).get(target.id);
  context.items.rewrite(target.id, merged, now);
  context.categories.removed(target.category, target.abstract, oldVector, now);
  if (newVector) context.vectors.upsert(target.id, newVector, target.scope, target.category);
  context.categories.added(target.category, target.abstract, newVector, now);
}

/**
 * Store `fact` as the new version of `old`. Versioned categories (preferences, entities) keep the
 * old item as history (superseded_by points at the new one); others delete it.
 */
export function supersedeItem(
  context: MemoryContext,
  old: MemoryItem,
  fact: NormalizedFact,
  vector: Float32Array | undefined,
  now: number,
): number {
  const newId = insertItem(context, { ...fact, version: old.version + 1 }, vector, now);
  if (TEMPORAL_VERSIONED.has(old.category)) {
    const oldVector = context.vectors.vectors([old.id]).get(old.id);
    context.vectors.remove(old.id);
    context.items.supersede(old.id, newId, now);
    context.categories.removed(old.category, old.abstract, oldVector, now);
  } else {
    removeItem(context, old, now);
  }
  return newId;
}
