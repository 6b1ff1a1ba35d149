import type { Logger } from 'pino';
import type { FastTierCall } from '../context/fast-tier.js';

/** What the fast tier makes of a user's message (seed 004). */
export interface MessageClass {
  kind: 'command' | 'question' | 'statement';
  complexity: 'simple' | 'complex';
}

/** Classifies one message; undefined when it could not (the turn then runs on the agent's model). */
export type MessageClassifier = (
  message: string,
  signal: AbortSignal,
  traceId?: string,
) => Promise<MessageClass | undefined>;

/** The most of a message the classifier reads: its start says what kind of work it is. */
const CLASSIFY_MAX_CHARS = 4_000;

const SYSTEM = [
  "Classify the user's message for routing. Answer with two words only: the kind (command, question or statement)",
  'then the complexity (simple or complex). simple: a greeting, a short fact, a one-step request.',
  'complex: needs planning, several steps or tools, code, research, or careful reasoning. Example: "question simple".',
].join(' ');

/**
 * A message classifier on the fast tier (`loop.classify`). The message is data, not instructions:
 * only two known words are read back, anything else is no classification.
 */
export function createMessageClassifier(fastTier: FastTierCall, logger: Logger): MessageClassifier {
  return async (message, signal, traceId) => {
    try {
      const answer = await fastTier({
        system: SYSTEM,
        user: message.slice(0, CLASSIFY_MAX_CHARS),
        signal,
        traceId,
      });
      return parseClass(answer);
    } catch (error) {
      if (signal.aborted) throw error;
      logger.warn({ err: error }, "message not classified; the turn runs on the agent's model");
      return undefined;
    }
  };
}

const KINDS: readonly string[] = ['command', 'question', 'statement'];
const COMPLEXITIES: readonly string[] = ['simple', 'complex'];
const isKind = (word: string): word is MessageClass['kind'] => KINDS.includes(word);
const isComplexity = (word: string): word is MessageClass['complexity'] => COMPLEXITIES.includes(word);

/** `question simple` (in any case, with punctuation around) → the class; else undefined. */
export function parseClass(answer: string): MessageClass | undefined {
  const words: string[] = answer.toLowerCase().match(/[a-z]+/g) ?? [];
  const kind = words.find(isKind);
  const complexity = words.find(isComplexity);
  if (!kind || !complexity) return undefined;
  return { kind, complexity };
}
