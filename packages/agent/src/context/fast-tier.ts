import type OpenAI from 'openai';
import type { z } from 'zod';
import { traceHeaders } from '../subagents/subagent-context.js';

/** The cheap model that flushes and summarises: a tier alias the host's `/v1` resolves. */
export const FAST_TIER_MODEL = 'fast';

/** One silent, non-streamed call on the fast tier: a system prompt, one user message, text back. */
export type FastTierCall = (request: {
  system: string;
  user: string;
  signal: AbortSignal;
  traceId?: string | undefined;
}) => Promise<string>;

/** Where a call goes when the fast tier cannot answer (seed 004): dearer, but the work gets done. */
export const FAST_TIER_FALLBACK_MODEL = 'default';

/**
 * A fast-tier caller over the host's OpenAI-compatible proxy. When the fast tier is unavailable
 * (the host answers 5xx or 429 after its own failover, or cannot be reached), the call is made once
 * on the default tier and `onFallback` hears of it, so the dearer call is logged; a refusal (4xx)
 * is the caller's to see.
 */
export function createFastTierCall(
  llm: () => Promise<OpenAI>,
  model = FAST_TIER_MODEL,
  onFallback?: (error: unknown) => void,
): FastTierCall {
  const once = async (
    chosen: string,
    { system, user, signal, traceId }: Parameters<FastTierCall>[0],
  ): Promise<string> => {
    const client = await llm();
    const completion = await client.chat.completions.create(
      {
        model: chosen,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        // No temperature or max_tokens: reasoning models (o-series, gpt-5) refuse both, and the tier
        // may be any of them. The prompts ask for short answers instead.
      },
      { signal, ...(traceId ? { headers: traceHeaders(traceId) } : {}) },
    );
    const text = completion.choices[0]?.message.content;
    if (!text) throw new Error('the fast tier answered with no text');
    return text;
  };
  return async (request) => {
    try {
      return await once(model, request);
    } catch (error) {
      if (request.signal.aborted || model === FAST_TIER_FALLBACK_MODEL || !isUnavailable(error)) throw error;
      onFallback?.(error);
      return once(FAST_TIER_FALLBACK_MODEL, request);
    }
  };
}

/** The fast tier could not answer (as opposed to refusing the request). */
/** A failure of the tier itself (5xx, 429, no connection), not a refusal of the request. */
export function isUnavailable(error: unknown): boolean {
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') return status >= 500 || status === 429;
  // No status: the connection failed or timed out.
  return (
    error instanceof Error &&
    /connection|timed? ?out|ECONN|fetch failed/i.test(`${error.name} ${error.message}`)
  );
}

/**
 * The JSON object in a model's answer (small models wrap it in prose or a code fence), checked
 * against `schema`.
 *
 * @throws Error naming what was wrong, when there is no object or it does not fit.
 */
export function parseJsonReply<T>(text: string, schema: z.ZodType<T>): T {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end <= start) throw new Error('the answer holds no JSON object');
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch (cause) {
    throw new Error('the answer is not valid JSON', { cause });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`the answer does not fit: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  return parsed.data;
}
