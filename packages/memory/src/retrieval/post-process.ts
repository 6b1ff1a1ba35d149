import type { Candidate } from './candidate.js';
import { DEFAULT_DECAY_CONFIG, type DecayConfig, decayMultiplier } from './decay.js';
import { mmrOrder } from './mmr.js';
import type { RetrievalConfig } from './retrieval-config.js';

const DAY_MS = 86_400_000;

/** A step that may rerank asynchronously (the optional LLM rerank). */
export type RerankStep = (candidates: Candidate[]) => Promise<Candidate[]>;

/**
 * The post-retrieval pipeline, in the memory design's order: min score → rerank → priors and recency
 * boost → importance weight → length normalisation → decay multiplier → hard minimum → MMR → limit.
 */
export async function postProcess(
  candidates: readonly Candidate[],
  options: { config: RetrievalConfig; decay?: DecayConfig; now: number; limit: number; rerank?: RerankStep },
): Promise<Candidate[]> {
  const { config, now, limit } = options;
  let list = sortByScore(candidates.filter((candidate) => candidate.score >= config.minScore));
  if (options.rerank) list = sortByScore(await options.rerank(list));
  list = list.map((candidate) => adjusted(candidate, config, options.decay, now));
  list = sortByScore(list.filter((candidate) => relevance(candidate) >= config.hardMinScore));
  return mmrOrder(list, config.mmrLambda, limit);
}

/**
 * A candidate's score without its priors' share: what the thresholds and the hierarchical
 * sufficiency check compare, since priors order results but are no evidence of relevance.
 */
export function relevance(candidate: Candidate): number {
  return candidate.score - (candidate.prior ?? 0);
}

/**
 * Recency boost, importance weight, length normalisation and decay applied to one candidate's score,
 * and its priors added, scaled by the same weights (`prior` becomes their share of the new score).
 */
function adjusted(
  candidate: Candidate,
  config: RetrievalConfig,
  decay: DecayConfig | undefined,
  now: number,
): Candidate {
  const { item } = candidate;
  const ageDays = Math.max(0, (now - item.createdAt) / DAY_MS);
  const boosted = candidate.score + config.recencyWeight * 0.5 ** (ageDays / config.recencyHalfLifeDays);
  let weight = config.importanceBase + (1 - config.importanceBase) * item.importance;
  const chars = item.content.length;
  if (chars > config.lengthAnchorChars) {
    weight *= 1 / (1 + config.lengthPenalty * Math.log2(chars / config.lengthAnchorChars));
  }
  if (config.decay) weight *= decayMultiplier(item, now, decay ?? DEFAULT_DECAY_CONFIG);
  const prior = (candidate.prior ?? 0) * weight;
  return { ...candidate, score: boosted * weight + prior, prior };
}

function sortByScore(list: Candidate[]): Candidate[] {
  return list.sort((a, b) => b.score - a.score || a.item.id - b.item.id);
}
