import { z } from 'zod';
import type { LlmMessage } from './context-manager.js';
import type { ExtractedFact } from './context-state-store.js';
import { FACT_JSON_SHAPE, factListSchema, normalizeFacts } from './extracted-facts.js';
import { type FastTierCall, parseJsonReply } from './fast-tier.js';
import { transcriptChunks, UNREAD_MARKER } from './transcript.js';

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
  `Also list durable facts in "facts", but only from the messages after the line ${UNREAD_MARKER}`,
  '(earlier ones are saved already); an empty list when the transcript has no such line.',
  `Reply with JSON only: {"user_profile":"...","conversation":"...","facts":[${FACT_JSON_SHAPE}]}`,
].join('\n');

const summaryReplySchema = z.object({
  user_profile: z.string().default(''),
  conversation: z.string().trim().min(1, 'the conversation summary is empty'),
  facts: factListSchema.default([]),
});

/**
 * Progressive summarisation on the fast tier: the messages are read chunk by chunk, oldest first,
 * each chunk folded into the summary so far. Facts are asked for only from `unreadFrom` on (the
 * first message no flush has read); without it, the facts returned are ignored.
 *
 * @throws the first chunk's failure (a refused call, or an answer without a usable summary).
 */
export async function summarise(
  call: FastTierCall,
  request: {
    previous: DualSummary;
    messages: readonly LlmMessage[];
    /** Index (in `messages`) of the first message no flush has read; absent when all were read. */
    unreadFrom?: number | undefined;
    signal: AbortSignal;
    traceId?: string | undefined;
  },
): Promise<{ summary: DualSummary; facts: ExtractedFact[] }> {
  const { messages, unreadFrom, signal, traceId } = request;
  let summary = request.previous;
  const facts: ExtractedFact[] = [];
  let unreadReached = false;
  for (const chunk of transcriptChunks(messages, unreadFrom)) {
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
    unreadReached ||= chunk.includes(UNREAD_MARKER);
    if (unreadReached) facts.push(...normalizeFacts(reply.facts));
  }
  return { summary, facts };
}
