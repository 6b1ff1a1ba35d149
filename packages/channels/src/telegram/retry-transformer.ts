import { type Clock, retry } from '@openlegion/infra/clock';
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
  /** Told how calls go: `ok` after an answer, else why one is being retried (for `openlegion status`). */
  onHealth?: (health: 'ok' | 'rate_limited' | 'unreachable', detail: string) => void;
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
    // grammY types its signal with an old shim; at run time it is the caller's Node AbortSignal.
    const abort = signal as unknown as AbortSignal | undefined;
    try {
      return await retry(
        async () => {
          const response = await prev(method, payload, signal);
          if (response.ok) policy.onHealth?.('ok', '');
          if (response.ok) return response;
          if (response.error_code === 429 || response.error_code >= 500) throw new RetryableAnswer(response);
          return response;
        },
        {
          attempts: policy.maxAttempts?.(method) ?? Number.POSITIVE_INFINITY,
          backoffMs: (attempt, error) => {
            const retryAfterSeconds = error instanceof RetryableAnswer ? error.retryAfterSeconds : undefined;
            return retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : backoffDelayMs(attempt + 1);
          },
          // A 429 or 5xx is always worth another try; a network error only while the caller waits.
          retryable: (error) => error instanceof RetryableAnswer || !abort?.aborted,
          onRetry: (error, attempt, waitMs) => {
            const rateLimited = error instanceof RetryableAnswer && error.retryAfterSeconds !== undefined;
            policy.onHealth?.(
              rateLimited ? 'rate_limited' : 'unreachable',
              rateLimited
                ? `Telegram asked to wait ${Math.round(waitMs / 1000)} s`
                : error instanceof Error
                  ? error.message
                  : String(error),
            );
            policy.logger.warn(
              {
                method,
                attempt: attempt + 1,
                waitMs,
                reason: error instanceof Error ? error.message : String(error),
              },
              'telegram call failed; retrying',
            );
          },
          signal: abort,
          sleep: (ms, sleepSignal) => policy.clock.sleep(ms, sleepSignal),
        },
      );
    } catch (error) {
      // Out of tries on a 429 or 5xx: the caller gets Telegram's answer, as from a call not retried.
      if (error instanceof RetryableAnswer) return error.response;
      throw error;
    }
  };
}

/** A 429 or 5xx answer, thrown so `retry` tries again; its message is the log's reason. */
class RetryableAnswer<
  R extends { error_code: number; description: string; parameters?: { retry_after?: number } },
> extends Error {
  readonly retryAfterSeconds: number | undefined;
  constructor(readonly response: R) {
    super(`${response.error_code} ${response.description}`);
    this.retryAfterSeconds = response.error_code === 429 ? response.parameters?.retry_after : undefined;
  }
}
