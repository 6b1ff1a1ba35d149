import { z } from 'zod';
import { type ChatLlm, extractJsonObject } from '../llm/chat-llm.js';
import { BUILTIN_CATEGORIES, type FactInput } from '../model/memory-item.js';
import { heuristicCategory } from './heuristic-category.js';

/** At most this many memories come out of one transcript. */
export const MAX_EXTRACTED = 5;
/** Transcripts are cut to their last characters before they go to the model. */
const MAX_TRANSCRIPT_CHARS = 24_000;

const EXTRACT_SYSTEM = `You extract durable memories from a conversation transcript.
Return only JSON: {"memories": [{"category": "...", "abstract": "...", "overview": "...", "content": "..."}]}
with at most ${MAX_EXTRACTED} memories worth remembering in later conversations (nothing trivial, no greetings).
category: one of ${BUILTIN_CATEGORIES.join(', ')}, or a new snake_case name when none fits.
abstract: one line. overview: two or three sentences. content: the full fact with its details and dates.`;

const extractedMemory = z.object({
  category: z.string().regex(/^[a-z][a-z0-9_]{0,47}$/),
  abstract: z.string().min(1),
  overview: z.string().default(''),
  content: z.string().min(1),
});
const extractAnswer = z.object({ memories: z.array(z.unknown()) });

/** Extracted facts, and whether the LLM or the heuristic produced them (and why not the LLM). */
export interface Extraction {
  facts: FactInput[];
  mode: 'llm' | 'heuristic';
  fallbackReason?: string;
}

/**
 * Extract up to five memories from a transcript with the LLM (fast tier); without an LLM, or when its
 * answer is unusable, pick fact-like sentences the user said.
 */
export async function extractMemories(
  transcript: string,
  llm: ChatLlm | undefined,
  signal?: AbortSignal,
): Promise<Extraction> {
  const text = transcript.slice(-MAX_TRANSCRIPT_CHARS);
  if (!llm) return { facts: heuristicExtract(text), mode: 'heuristic', fallbackReason: 'no LLM configured' };
  try {
    const answer = await llm.complete({ system: EXTRACT_SYSTEM, user: text, ...(signal ? { signal } : {}) });
    const parsed = extractAnswer.safeParse(extractJsonObject(answer));
    if (!parsed.success) throw new Error('the answer was not {"memories": [...]}');
    const facts = parsed.data.memories.flatMap((entry) => {
      const memory = extractedMemory.safeParse(entry);
      return memory.success ? [memory.data] : [];
    });
    return { facts: facts.slice(0, MAX_EXTRACTED), mode: 'llm' };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      facts: heuristicExtract(text),
      mode: 'heuristic',
      fallbackReason: `LLM extraction failed: ${reason}`,
    };
  }
}

/** First-person statements and sentences with numbers or names are the likeliest lasting facts. */
const FACT_CUES = /\b(i|i'm|i've|my|we|our|remember|always|never|prefer|decided|deadline|birthday)\b|\d/i;
const ROLE_PREFIX = /^(user|human|assistant|ai|system)\s*:\s*/i;

/** Up to five fact-like sentences from the user's side of the transcript, in order. */
export function heuristicExtract(transcript: string): FactInput[] {
  const lines = transcript
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const hasRoles = lines.some((line) => ROLE_PREFIX.test(line));
  const userText = lines
    .filter((line) => !hasRoles || /^(user|human)\s*:/i.test(line))
    .map((line) => line.replace(ROLE_PREFIX, ''))
    .join(' ');
  const sentences = userText.match(/[^.!?]+[.!?]?/g) ?? [];
  const seen = new Set<string>();
  return sentences
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length >= 15 && sentence.length <= 400 && FACT_CUES.test(sentence))
    .filter((sentence) => !seen.has(sentence.toLowerCase()) && seen.add(sentence.toLowerCase()))
    .slice(0, MAX_EXTRACTED)
    .map((sentence) => ({
      content: sentence,
      abstract: sentence,
      category: heuristicCategory(sentence),
      confidence: 0.5,
    }));
}
