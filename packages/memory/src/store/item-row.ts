import type { MemoryItem, MemorySource, TemporalType, Tier } from '../model/memory-item.js';

/** A `memory_items` row as SQLite returns it. */
export interface ItemRow {
  id: number;
  scope: string;
  category: string;
  abstract: string;
  overview: string;
  content: string;
  tier: string;
  temporal_type: string;
  importance: number;
  confidence: number;
  access_count: number;
  last_accessed_at: number | null;
  created_at: number;
  updated_at: number;
  source: string;
  source_ref: string | null;
  version: number;
  superseded_by: number | null;
}

/** The CHECK constraints keep tier, temporal type and source within their sets. */
export function toMemoryItem(row: ItemRow): MemoryItem {
  return {
    id: row.id,
    scope: row.scope,
    category: row.category,
    abstract: row.abstract,
    overview: row.overview,
    content: row.content,
    tier: row.tier as Tier,
    temporalType: row.temporal_type as TemporalType,
    importance: row.importance,
    confidence: row.confidence,
    accessCount: row.access_count,
    lastAccessedAt: row.last_accessed_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    source: row.source as MemorySource,
    sourceRef: row.source_ref,
    version: row.version,
    supersededBy: row.superseded_by,
  };
}

export const ITEM_COLUMNS =
  'id, scope, category, abstract, overview, content, tier, temporal_type, importance, confidence, ' +
  'access_count, last_accessed_at, created_at, updated_at, source, source_ref, version, superseded_by';
