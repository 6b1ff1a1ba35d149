import type { MemoryItem, Tier } from '../model/memory-item.js';

const DAY_MS = 86_400_000;

/** The composite decay model's constants (the memory design's defaults). */
export interface DecayConfig {
  baseHalfLifeDays: number;
  /** Dynamic facts age this many times faster. */
  dynamicHalfLifeDivisor: number;
  /** effective half-life = base · exp(importanceStretch · importance). */
  importanceStretch: number;
  /** Weibull shape per tier: < 1 fades slowly at first, > 1 fades fast. */
  beta: Record<Tier, number>;
  recencyWeight: number;
  frequencyWeight: number;
  intrinsicWeight: number;
  /** The composite never goes below a tier's floor. */
  tierFloor: Record<Tier, number>;
  /** multiplier = boostMin + (1 − boostMin) · max(floor, composite). */
  boostMin: number;
}

export const DEFAULT_DECAY_CONFIG: Readonly<DecayConfig> = Object.freeze({
  baseHalfLifeDays: 30,
  dynamicHalfLifeDivisor: 3,
  importanceStretch: 1.5,
  beta: { core: 0.8, working: 1.0, peripheral: 1.3 },
  recencyWeight: 0.4,
  frequencyWeight: 0.3,
  intrinsicWeight: 0.3,
  tierFloor: { core: 0.9, working: 0.7, peripheral: 0.5 },
  boostMin: 0.3,
});

type DecayInput = Pick<
  MemoryItem,
  'tier' | 'temporalType' | 'importance' | 'confidence' | 'accessCount' | 'lastAccessedAt' | 'createdAt'
>;

/** Weibull recency: exp(−λ · days^β) with λ = ln 2 / half-life stretched by importance. */
export function recencyScore(
  item: DecayInput,
  now: number,
  config: DecayConfig = DEFAULT_DECAY_CONFIG,
): number {
  const base =
    item.temporalType === 'dynamic'
      ? config.baseHalfLifeDays / config.dynamicHalfLifeDivisor
      : config.baseHalfLifeDays;
  const halfLife = base * Math.exp(config.importanceStretch * item.importance);
  const lambda = Math.LN2 / halfLife;
  const lastActive =
    item.accessCount > 0 && item.lastAccessedAt !== null ? item.lastAccessedAt : item.createdAt;
  const days = Math.max(0, (now - lastActive) / DAY_MS);
  return Math.exp(-lambda * days ** config.beta[item.tier]);
}

/** Frequency: (1 − e^(−count/5)) · (0.5 + 0.5 · e^(−avgGapDays/30)). */
export function frequencyScore(item: DecayInput, now: number): number {
  if (item.accessCount <= 0) return 0;
  const base = 1 - Math.exp(-item.accessCount / 5);
  const lastActive = item.lastAccessedAt ?? now;
  const avgGapDays = Math.max(0, (lastActive - item.createdAt) / DAY_MS) / item.accessCount;
  return base * (0.5 + 0.5 * Math.exp(-avgGapDays / 30));
}

/** Intrinsic worth: importance · confidence (both 0..1). */
export function intrinsicScore(item: DecayInput): number {
  return item.importance * item.confidence;
}

/** 0.4 · recency + 0.3 · frequency + 0.3 · intrinsic. */
export function compositeDecay(
  item: DecayInput,
  now: number,
  config: DecayConfig = DEFAULT_DECAY_CONFIG,
): number {
  return (
    config.recencyWeight * recencyScore(item, now, config) +
    config.frequencyWeight * frequencyScore(item, now) +
    config.intrinsicWeight * intrinsicScore(item)
  );
}

/** The search-score multiplier: boostMin + (1 − boostMin) · max(tier floor, composite), in [boostMin, 1]. */
export function decayMultiplier(
  item: DecayInput,
  now: number,
  config: DecayConfig = DEFAULT_DECAY_CONFIG,
): number {
  const composite = Math.max(config.tierFloor[item.tier], compositeDecay(item, now, config));
  return Math.min(1, Math.max(config.boostMin, config.boostMin + (1 - config.boostMin) * composite));
}
