import type { NormalizedFact } from '../model/memory-item.js';
import { contentTerms } from '../text/tokens.js';

/** Prior worth of each category: lasting facts about the user weigh more than passing events. */
export const TYPE_PRIORS: Readonly<Record<string, number>> = Object.freeze({
  profile: 0.95,
  preferences: 0.9,
  patterns: 0.85,
  cases: 0.8,
  entities: 0.75,
  events: 0.45,
});
const UNKNOWN_TYPE_PRIOR = 0.6;

/** Admission control (opt-in), the balanced preset by default. */
export interface AdmissionConfig {
  enabled: boolean;
  /** Admit at or above. */
  admitScore: number;
  /** Reject below; in between an item is admitted on probation (tier peripheral). */
  rejectScore: number;
  weights: { utility: number; confidence: number; novelty: number; recency: number; typePrior: number };
}

export const DEFAULT_ADMISSION_CONFIG: Readonly<AdmissionConfig> = Object.freeze({
  enabled: false,
  admitScore: 0.6,
  rejectScore: 0.45,
  weights: { utility: 0.25, confidence: 0.15, novelty: 0.25, recency: 0.1, typePrior: 0.25 },
});

export type AdmissionVerdict = 'admit' | 'probation' | 'reject';

/**
 * Score a fact: utility (how much it says: content terms, saturating at 8), confidence, novelty
 * (1 − similarity to the closest stored item), recency (facts arrive now: 1) and the type prior.
 */
export function admissionScore(
  fact: NormalizedFact,
  closestSimilarity: number,
  config: AdmissionConfig,
): number {
  const utility = Math.min(1, new Set(contentTerms(fact.content)).size / 8);
  const novelty = 1 - Math.max(0, Math.min(1, closestSimilarity));
  const prior = TYPE_PRIORS[fact.category] ?? UNKNOWN_TYPE_PRIOR;
  const { weights } = config;
  return (
    weights.utility * utility +
    weights.confidence * fact.confidence +
    weights.novelty * novelty +
    weights.recency * 1 +
    weights.typePrior * prior
  );
}

export function admissionVerdict(score: number, config: AdmissionConfig): AdmissionVerdict {
  if (score >= config.admitScore) return 'admit';
  return score < config.rejectScore ? 'reject' : 'probation';
}
