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

/**
 * The flush turn: a silent call on the fast tier per transcript chunk that lists facts as
 * `{key, value, category}`. Nothing of it reaches the user but the notice the caller emits.
 *
 * @throws the first chunk's failure (a refused call or an answer that is not the JSON asked for).
 */
export async function extractFacts(
  call: FastTierCall,
  messages: readonly LlmMessage[],
  signal: AbortSignal,
  traceId?: string,
): Promise<ExtractedFact[]> {
  const facts: ExtractedFact[] = [];
  for (const chunk of transcriptChunks(messages)) {
    const answer = await call({ system: FLUSH_PROMPT, user: `Transcript:\n${chunk}`, signal, traceId });
    facts.push(...normalizeFacts(parseJsonReply(answer, flushReplySchema).facts));
  }
  return facts;
}
