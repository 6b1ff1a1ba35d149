import type { MemoryItem } from './memory-item.js';

/** Day zero plus 1,000 days: a fixed "now" for tests that age items. */
export const FIXTURE_NOW = 1_000 * 86_400_000;

/** A valid live item for tests (created at {@link FIXTURE_NOW}); override what the test is about. */
export function sampleItem(overrides: Partial<MemoryItem> = {}): MemoryItem {
  return {
    id: 1,
    scope: 'global',
    category: 'entities',
    abstract: 'a',
    overview: 'a',
    content: 'a',
    tier: 'working',
    temporalType: 'static',
    importance: 0,
    confidence: 1,
    accessCount: 0,
    lastAccessedAt: null,
    createdAt: FIXTURE_NOW,
    updatedAt: FIXTURE_NOW,
    source: 'tool',
    sourceRef: null,
    version: 1,
    supersededBy: null,
    ...overrides,
  };
}
