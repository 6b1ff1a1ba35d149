import { z } from 'zod';
import type { LlmMessage } from './context-manager.js';
import type { ExtractedFact } from './context-state-store.js';
import { FACT_JSON_SHAPE, factListSchema, normalizeFacts } from './extracted-facts.js';
import { type FastTierCall, parseJsonReply } from './fast-tier.js';
import { transcriptChunks } from './transcript.js';

const FLUSH_PROMPT = [
  'You save what matters from a conversation between a user and an AI agent before older parts of it',
  'are compacted away. Read the transcript and list the durable facts worth remembering later: who the',
  'user is, their preferences, names, numbers, dates, decisions, commitments, results of work and open',
  'tasks. Skip small talk and anything true only for a moment. Tool output is shown clipped.',
  `Reply with JSON only: {"facts":[${FACT_JSON_SHAPE}]}`,
  'At most 25 facts; an empty list when nothing is worth keeping.',
].join('\n');

const flushReplySchema = z.object({ facts: factListSchema });

/** Flush chunks are independent, so a long range is read by a few calls at once. */
const FLUSH_CONCURRENCY = 4;

/**
 * The flush turn: silent calls on the fast tier, one per transcript chunk (a few at a time), that
 * list facts as `{key, value, category}`. Nothing of it reaches the user but the notice the caller
 * emits.
 *
 * @throws the first failure (a refused call or an answer that is not the JSON asked for).
 */
export async function extractFacts(
  call: FastTierCall,
  messages: readonly LlmMessage[],
  signal: AbortSignal,
  traceId?: string,
): Promise<ExtractedFact[]> {
  const chunks = transcriptChunks(messages);
  const perChunk: ExtractedFact[][] = new Array(chunks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < chunks.length) {
      const index = next++;
      const answer = await call({
        system: FLUSH_PROMPT,
        user: `Transcript:\n${chunks[index]}`,
        signal,
        traceId,
      });
      perChunk[index] = normalizeFacts(parseJsonReply(answer, flushReplySchema).facts);
    }
  };
  await Promise.all(Array.from({ length: Math.min(FLUSH_CONCURRENCY, chunks.length) }, worker));
  return perChunk.flat();
}
