import type { Clock } from '@openlegion/infra/clock';
import type { Transformer } from 'grammy';
import type { Logger } from 'pino';

export const RETRY_BASE_DELAY_MS = 1_000;
export const RETRY_MAX_DELAY_MS = 60_000;

/** How a channel's Telegram calls are retried. */
export interface RetryPolicy {
  clock: Clock;
  logger: Logger;
  /** Tries in all, per method; default unbounded (until the call's signal aborts). */
  maxAttempts?: (method: string) => number;
}

/** Exponential backoff: 1 s, 2 s, 4 s … capped at a minute. */
export function backoffDelayMs(attempt: number): number {
  return Math.min(RETRY_MAX_DELAY_MS, RETRY_BASE_DELAY_MS * 2 ** Math.max(0, attempt - 1));
}

/**
 * A grammY API transformer that retries what Telegram did not do: a 429 after its `retry_after`,
 * a 5xx and an unreachable server after a backoff. Waits go through the clock (tests move it), and
 * stop when the call's signal aborts. Other errors (400, 401, 403, 409) are answered at once.
 *
 * A 429 or 5xx means the message was not sent, so retrying cannot send it twice. A connection cut
 * after Telegram received the request is the one case the Bot API leaves ambiguous (it has no
 * idempotency key); the call is retried, which favours delivery over a possible duplicate.
 */
export function retryTransformer(policy: RetryPolicy): Transformer {
  return async (prev, method, payload, signal) => {
    const maxAttempts = policy.maxAttempts?.(method) ?? Number.POSITIVE_INFINITY;
    for (let attempt = 1; ; attempt++) {
      let waitMs: number;
      let reason: string;
      try {
        const response = await prev(method, payload, signal);
        if (response.ok) return response;
        const retryAfterSeconds = response.parameters?.retry_after;
        if (response.error_code === 429) {
          waitMs = retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : backoffDelayMs(attempt);
        } else if (response.error_code >= 500) {
          waitMs = backoffDelayMs(attempt);
        } else {
          return response;
        }
        reason = `${response.error_code} ${response.description}`;
        if (attempt >= maxAttempts) return response;
      } catch (error) {
        if (signal?.aborted || attempt >= maxAttempts) throw error;
        waitMs = backoffDelayMs(attempt);
        reason = error instanceof Error ? error.message : String(error);
      }
      policy.logger.warn({ method, attempt, waitMs, reason }, 'telegram call failed; retrying');
      // grammY types its signal with an old shim; at run time it is the caller's Node AbortSignal.
      await policy.clock.sleep(waitMs, signal as unknown as AbortSignal | undefined);
    }
  };
}
