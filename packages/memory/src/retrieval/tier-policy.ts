import type { MemoryItem, Tier } from '../model/memory-item.js';
import { compositeDecay, DEFAULT_DECAY_CONFIG, type DecayConfig } from './decay.js';

/** When items move between tiers (reinforcement up, decay down). */
export interface TierPolicy {
  /** peripheral → working once accessed this often. */
  promoteToWorkingAccesses: number;
  /** working → core once accessed this often with a composite score at least promoteToCoreComposite. */
  promoteToCoreAccesses: number;
  promoteToCoreComposite: number;
  /** core → working, and working → peripheral, when the composite falls below these. */
  demoteFromCoreComposite: number;
  demoteFromWorkingComposite: number;
}

export const DEFAULT_TIER_POLICY: Readonly<TierPolicy> = Object.freeze({
  promoteToWorkingAccesses: 3,
  promoteToCoreAccesses: 10,
  promoteToCoreComposite: 0.7,
  demoteFromCoreComposite: 0.3,
  demoteFromWorkingComposite: 0.2,
});

/** The tier an item should be in now (at most one step from where it is). */
export function nextTier(
  item: Pick<
    MemoryItem,
    'tier' | 'temporalType' | 'importance' | 'confidence' | 'accessCount' | 'lastAccessedAt' | 'createdAt'
  >,
  now: number,
  policy: TierPolicy = DEFAULT_TIER_POLICY,
  decay: DecayConfig = DEFAULT_DECAY_CONFIG,
): Tier {
  const composite = compositeDecay(item, now, decay);
  switch (item.tier) {
    case 'peripheral':
      return item.accessCount >= policy.promoteToWorkingAccesses ? 'working' : 'peripheral';
    case 'working':
      if (item.accessCount >= policy.promoteToCoreAccesses && composite >= policy.promoteToCoreComposite)
        return 'core';
      return composite < policy.demoteFromWorkingComposite ? 'peripheral' : 'working';
    case 'core':
      return composite < policy.demoteFromCoreComposite ? 'working' : 'core';
  }
}
