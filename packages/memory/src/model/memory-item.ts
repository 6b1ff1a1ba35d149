/** The six categories every store starts with; the extractor may create more. */
export const BUILTIN_CATEGORIES = [
  'profile',
  'preferences',
  'entities',
  'events',
  'cases',
  'patterns',
] as const;
export type BuiltinCategory = (typeof BUILTIN_CATEGORIES)[number];

/** How long an item is expected to matter: core items decay slowest, peripheral fastest. */
export const TIERS = ['core', 'working', 'peripheral'] as const;
export type Tier = (typeof TIERS)[number];

/** Static facts hold (a birthday); dynamic ones change over time (a current project) and decay faster. */
export const TEMPORAL_TYPES = ['static', 'dynamic'] as const;
export type TemporalType = (typeof TEMPORAL_TYPES)[number];

/** Where an item came from. */
export const MEMORY_SOURCES = ['chat', 'flush', 'tool', 'import'] as const;
export type MemorySource = (typeof MEMORY_SOURCES)[number];

/**
 * One stored memory. `content` is the full text (L2); `abstract` is one line (L0) and `overview` a
 * short summary (L1). Times are epoch milliseconds.
 */
export interface MemoryItem {
  id: number;
  scope: string;
  category: string;
  abstract: string;
  overview: string;
  content: string;
  tier: Tier;
  temporalType: TemporalType;
  /** 0..1: how much the item matters; stretches its half-life. */
  importance: number;
  /** 0..1: how sure the writer was. */
  confidence: number;
  accessCount: number;
  lastAccessedAt: number | null;
  createdAt: number;
  updatedAt: number;
  source: MemorySource;
  /** What the source was: a conversation id, a tool call, an import file. */
  sourceRef: string | null;
  /** 1 for a new item; merges and supersedes count up. */
  version: number;
  /** Set when a newer version replaced this one (versioned categories keep their history). */
  supersededBy: number | null;
}

/** A fact to store: only `content` is required; the rest gets defaults or heuristics. */
export interface FactInput {
  content: string;
  abstract?: string;
  overview?: string;
  category?: string;
  scope?: string;
  tier?: Tier;
  temporalType?: TemporalType;
  importance?: number;
  confidence?: number;
  source?: MemorySource;
  sourceRef?: string;
}

/** A fact with every field decided, ready to be written. */
export type NormalizedFact = Required<Omit<FactInput, 'sourceRef'>> & { sourceRef: string | null };
