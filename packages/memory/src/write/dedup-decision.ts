import { z } from 'zod';
import { type ChatLlm, extractJsonObject } from '../llm/chat-llm.js';
import {
  ALWAYS_MERGE,
  allowedDecisions,
  type DedupDecision,
  MERGE_SUPPORTED,
} from '../model/category-rules.js';
import type { MemoryItem, NormalizedFact } from '../model/memory-item.js';

/** Stored items at least this similar to a new fact go to the dedup decision. */
export const PRE_STORE_SIMILARITY = 0.7;
/** Without an LLM: this similar is the same fact (skip). */
const HEURISTIC_SKIP_SIMILARITY = 0.95;
/** Without an LLM: this similar, in a category that merges, is merged. */
const HEURISTIC_MERGE_SIMILARITY = 0.85;

/** A stored item near a new fact. */
export interface SimilarItem {
  item: MemoryItem;
  similarity: number;
}

/** What to do with a new fact, and with which stored item. */
export interface Decision {
  decision: DedupDecision;
  target?: MemoryItem;
  reason: string;
  by: 'llm' | 'heuristic' | 'rule';
}

const DEDUP_SYSTEM =
  'You keep a memory store free of duplicates. Given a new memory and similar stored ones, answer only JSON: ' +
  '{"decision": "create" | "merge" | "skip" | "supersede", "match_index": <index of the stored memory or null>, ' +
  '"reason": "<short>"}. create: new information. merge: adds detail to a stored memory. skip: already known. ' +
  'supersede: replaces a stored memory that is no longer true.';

const dedupAnswer = z.object({
  decision: z.enum(['create', 'merge', 'skip', 'supersede']),
  match_index: z.number().int().nullable().optional(),
  reason: z.string().default(''),
});

/**
 * Decide create | merge | skip | supersede for a fact against its similar stored items (top 3 at
 * similarity ≥ 0.7). profile always merges; append-only categories only create or skip. Asks the LLM
 * when there is one and falls back to similarity thresholds when there is not or it fails.
 */
export async function decideDedup(
  fact: NormalizedFact,
  similar: readonly SimilarItem[],
  llm: ChatLlm | undefined,
): Promise<Decision> {
  const [closest] = similar;
  if (ALWAYS_MERGE.has(fact.category)) {
    return closest
      ? { decision: 'merge', target: closest.item, reason: `${fact.category} always merges`, by: 'rule' }
      : { decision: 'create', reason: `first ${fact.category} item in scope`, by: 'rule' };
  }
  const matches = similar.filter((entry) => entry.similarity >= PRE_STORE_SIMILARITY).slice(0, 3);
  if (matches.length === 0) return { decision: 'create', reason: 'nothing similar stored', by: 'rule' };
  if (llm) {
    const decided = await askLlm(fact, matches, llm).catch(() => undefined);
    if (decided) return decided;
  }
  return heuristicDecision(fact, matches);
}

async function askLlm(
  fact: NormalizedFact,
  matches: readonly SimilarItem[],
  llm: ChatLlm,
): Promise<Decision | undefined> {
  const listing = matches
    .map((entry, index) => `[${index}] ${entry.item.abstract}\n${entry.item.content}`)
    .join('\n\n');
  const answer = await llm.complete({
    system: DEDUP_SYSTEM,
    user: `New memory (${fact.category}):\n${fact.abstract}\n${fact.content}\n\nStored memories:\n${listing}`,
  });
  const parsed = dedupAnswer.safeParse(extractJsonObject(answer));
  if (!parsed.success) return undefined;
  const { decision, match_index: index, reason } = parsed.data;
  const target = matches[index ?? 0]?.item;
  if (decision !== 'create' && decision !== 'skip' && !target) return undefined;
  const allowed = allowedDecisions(fact.category);
  // An append-only category never rewrites history: a merge or supersede becomes a new item.
  const held = allowed.includes(decision) ? decision : 'create';
  return { decision: held, ...(target ? { target } : {}), reason: reason || `llm: ${decision}`, by: 'llm' };
}

function heuristicDecision(fact: NormalizedFact, matches: readonly SimilarItem[]): Decision {
  const [closest] = matches;
  if (!closest) return { decision: 'create', reason: 'nothing similar stored', by: 'heuristic' };
  const similarity = closest.similarity.toFixed(2);
  if (closest.similarity >= HEURISTIC_SKIP_SIMILARITY) {
    return {
      decision: 'skip',
      target: closest.item,
      reason: `same as item ${closest.item.id} (${similarity})`,
      by: 'heuristic',
    };
  }
  if (MERGE_SUPPORTED.has(fact.category) && closest.similarity >= HEURISTIC_MERGE_SIMILARITY) {
    return {
      decision: 'merge',
      target: closest.item,
      reason: `close to item ${closest.item.id} (${similarity})`,
      by: 'heuristic',
    };
  }
  return { decision: 'create', reason: `closest item ${closest.item.id} at ${similarity}`, by: 'heuristic' };
}
