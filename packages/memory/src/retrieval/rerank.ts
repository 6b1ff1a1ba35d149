import { z } from 'zod';
import { type ChatLlm, extractJsonObject } from '../llm/chat-llm.js';
import type { Candidate } from './candidate.js';
import type { RetrievalConfig } from './retrieval-config.js';

const RERANK_SYSTEM =
  'You judge how relevant stored memories are to a query. Answer only JSON: ' +
  '{"scores": [{"index": <number>, "score": <0..1>}]} with one entry per memory.';

const rerankAnswer = z.object({
  scores: z.array(z.object({ index: z.number().int(), score: z.number().min(0).max(1) })),
});

/** What happened to a rerank: `llm` when the model's scores were used, `skipped` when it failed. */
export interface RerankOutcome {
  used: 'llm' | 'skipped';
  reason?: string;
}

/**
 * Rerank the top `rerankFactor · limit` candidates with the LLM (fast tier):
 * score = rerankWeight · llm + (1 − rerankWeight) · score. On any failure the order is kept and the
 * outcome says why, so search still answers.
 */
export function llmRerank(
  llm: ChatLlm,
  query: string,
  config: RetrievalConfig,
  limit: number,
  outcome: RerankOutcome,
) {
  return async (candidates: Candidate[]): Promise<Candidate[]> => {
    const head = candidates.slice(0, config.rerankFactor * limit);
    if (head.length === 0) return candidates;
    const listing = head.map((candidate, index) => `[${index}] ${candidate.item.abstract}`).join('\n');
    try {
      const answer = await llm.complete({
        system: RERANK_SYSTEM,
        user: `Query: ${query}\n\nMemories:\n${listing}`,
      });
      const parsed = rerankAnswer.safeParse(extractJsonObject(answer));
      if (!parsed.success) throw new Error('the rerank answer was not {"scores": [...]}');
      const byIndex = new Map(parsed.data.scores.map((entry) => [entry.index, entry.score]));
      outcome.used = 'llm';
      const reranked = head.map((candidate, index) => {
        const llmScore = byIndex.get(index);
        if (llmScore === undefined) return candidate;
        return {
          ...candidate,
          score: config.rerankWeight * llmScore + (1 - config.rerankWeight) * candidate.score,
        };
      });
      return [...reranked, ...candidates.slice(head.length)];
    } catch (error) {
      outcome.used = 'skipped';
      outcome.reason = error instanceof Error ? error.message : String(error);
      return candidates;
    }
  };
}
