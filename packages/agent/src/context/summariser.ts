import { z } from 'zod';
import type { LlmMessage } from './context-manager.js';
import type { ExtractedFact } from './context-state-store.js';
import { FACT_JSON_SHAPE, factListSchema, normalizeFacts } from './extracted-facts.js';
import { type FastTierCall, parseJsonReply } from './fast-tier.js';
import { transcriptChunks } from './transcript.js';

/** The dual summary: who the user is, and what the conversation is about. */
export interface DualSummary {
  userProfile: string;
  conversation: string;
}

/** Each part stays short: it rides along in every later prompt. */
const SUMMARY_MAX_CHARS = 3_000;

const SUMMARISER_PROMPT = [
  'You keep the running memory of a long conversation between a user and an AI agent, so that older',
  'messages can leave its prompt. You get the current memory and a transcript of messages to fold in.',
  'Update both parts and keep everything that is still true:',
  '- "user_profile": who the user is and how they like to work (name, role, preferences, constraints).',
  '- "conversation": what was discussed and done: decisions, results, open tasks, and the exact names,',
  '  numbers, dates, paths and identifiers that may be needed later.',
  'At most 250 words per part, compact prose or bullets. Tool output is shown clipped.',
  'Also list durable facts from the new transcript in "facts".',
  `Reply with JSON only: {"user_profile":"...","conversation":"...","facts":[${FACT_JSON_SHAPE}]}`,
].join('\n');

const summaryReplySchema = z.object({
  user_profile: z.string().default(''),
  conversation: z.string().trim().min(1, 'the conversation summary is empty'),
  facts: factListSchema.default([]),
});

/**
 * Progressive summarisation on the fast tier: the messages are read chunk by chunk, oldest first,
 * each chunk folded into the summary so far.
 *
 * @throws the first chunk's failure (a refused call, or an answer without a usable summary).
 */
export async function summarise(
  call: FastTierCall,
  previous: DualSummary,
  messages: readonly LlmMessage[],
  signal: AbortSignal,
  traceId?: string,
): Promise<{ summary: DualSummary; facts: ExtractedFact[] }> {
  let summary = previous;
  const facts: ExtractedFact[] = [];
  for (const chunk of transcriptChunks(messages)) {
    const user = [
      'Current memory:',
      `USER PROFILE: ${summary.userProfile || '(nothing yet)'}`,
      `CONVERSATION: ${summary.conversation || '(nothing yet)'}`,
      '',
      'Transcript to fold in:',
      chunk,
    ].join('\n');
    const reply = parseJsonReply(
      await call({ system: SUMMARISER_PROMPT, user, signal, traceId }),
      summaryReplySchema,
    );
    summary = {
      // A model that forgets the profile must not erase it.
      userProfile: (reply.user_profile.trim() || summary.userProfile).slice(0, SUMMARY_MAX_CHARS),
      conversation: reply.conversation.trim().slice(0, SUMMARY_MAX_CHARS),
    };
    facts.push(...normalizeFacts(reply.facts));
  }
  return { summary, facts };
}
