import { estimateTokens } from '@openlegion/memory';
import type { FastTierCall } from '../fast-tier.js';
import type { SummaryMode } from './summary-store.js';

const NORMAL_PROMPT = [
  'You summarise part of a long conversation between a user and an AI agent. The original messages',
  "stay stored and searchable; your summary stands in for them in the agent's prompt. Keep decisions,",
  'results, open tasks, and the exact names, numbers, dates, paths and identifiers. Compact prose or',
  'bullets, no preamble. Reply with the summary text only.',
].join('\n');

const AGGRESSIVE_PROMPT = [
  'Summarise this part of a conversation as tersely as possible: only the facts, decisions and open',
  'tasks that later work may need, with exact identifiers. At most a short list. Reply with the text only.',
].join('\n');

/** What one summary call is asked for: a transcript, its longest answer, and how to stop. */
export interface SpanRequest {
  /** The transcript (messages, or the summaries being condensed), oldest first. */
  text: string;
  targetTokens: number;
  /** A condensed summary says so in its prompt: it merges summaries, not messages. */
  condensing: boolean;
  signal: AbortSignal;
  traceId?: string | undefined;
}

/**
 * One summary with escalation (seed 001): the fast tier's normal prompt; when that fails or answers
 * longer than the target, the aggressive one; when that fails or is too long too, a deterministic
 * cut of the transcript. Never throws except when the signal aborts: a summary always comes back.
 */
export async function summariseSpan(
  call: FastTierCall,
  request: SpanRequest,
): Promise<{ content: string; mode: SummaryMode; failures: unknown[] }> {
  const failures: unknown[] = [];
  const what = request.condensing ? 'These are summaries of consecutive parts; merge them.\n\n' : '';
  for (const [mode, system] of [
    ['normal', NORMAL_PROMPT],
    ['aggressive', AGGRESSIVE_PROMPT],
  ] as const) {
    try {
      const words = Math.floor(request.targetTokens * 0.7);
      const reply = await call({
        system: `${system}\nAt most ${words} words.`,
        user: `${what}${request.text}`,
        signal: request.signal,
        traceId: request.traceId,
      });
      const content = reply.trim();
      if (content && estimateTokens(content) <= request.targetTokens) return { content, mode, failures };
      failures.push(new Error(`the ${mode} summary was empty or longer than ${request.targetTokens} tokens`));
    } catch (error) {
      if (request.signal.aborted) throw error;
      failures.push(error);
    }
  }
  return { content: truncateToTokens(request.text, request.targetTokens), mode: 'truncated', failures };
}

/**
 * The deterministic last step: the head of each transcript line, shortened evenly until the whole
 * fits the target, so every message keeps a trace rather than only the first ones.
 */
export function truncateToTokens(text: string, targetTokens: number): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const marker = '[truncated: the fast tier could not summarise this span; lcm_expand shows it whole]';
  let width = 400;
  while (width >= 20) {
    const cut = lines.map((line) => (line.length > width ? `${line.slice(0, width)}…` : line));
    const joined = [marker, ...cut].join('\n');
    if (estimateTokens(joined) <= targetTokens) return joined;
    width = Math.floor(width * 0.7);
  }
  // Too many lines for even their heads: keep the newest that fit.
  const kept: string[] = [];
  let tokens = estimateTokens(marker);
  for (const line of [...lines].reverse()) {
    const head = line.slice(0, 20);
    tokens += estimateTokens(head) + 1;
    if (tokens > targetTokens) break;
    kept.unshift(head);
  }
  return [marker, ...kept].join('\n');
}
