import { setTimeout as sleepFor } from 'node:timers/promises';

export interface RetryOptions {
  /** Tries in all, the first included (1 = no retry; `Infinity` = until `signal` aborts). */
  attempts: number;
  /** The wait after failed try `attempt` (0-based) before the next one; `error` is its failure. */
  backoffMs: (attempt: number, error: unknown) => number;
  /** Whether a failure is worth another try; the others are thrown at once. */
  retryable: (error: unknown) => boolean;
  /** Told before each wait: where a retry is logged. */
  onRetry?: (error: unknown, attempt: number, waitMs: number) => void;
  /** Ends the waits (and the retries) early: rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * How to wait; a test passes one that records. The default keeps the process alive while it
   * waits (unlike `systemClock`'s unref'd timers): a boot that retries must not exit mid-wait.
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Run `fn` until it succeeds, it fails with an error `retryable` refuses, or `attempts` are used
 * up; the last error is thrown as it was. `fn` gets the 0-based attempt number.
 *
 * @example
 * const self = await retry(() => client.getSelf(), {
 *   attempts: 4,
 *   backoffMs: (attempt) => 100 * 3 ** attempt,
 *   retryable: (error) => isOpenLegionError(error) && error.retryable,
 * });
 */
export async function retry<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const sleep = options.sleep ?? ((ms: number, signal?: AbortSignal) => sleepFor(ms, undefined, { signal }));
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt + 1 >= options.attempts || !options.retryable(error)) throw error;
      if (options.signal?.aborted) throw options.signal.reason;
      const waitMs = options.backoffMs(attempt, error);
      options.onRetry?.(error, attempt, waitMs);
      await sleep(waitMs, options.signal);
    }
  }
}

/**
 * A backoff that waits `delaysMs[attempt]`, then the last delay again: for a hand-tuned schedule
 * (`attempts` is usually `delaysMs.length + 1`).
 */
export function backoffFrom(delaysMs: readonly number[]): (attempt: number) => number {
  return (attempt) => delaysMs[Math.min(attempt, delaysMs.length - 1)] ?? 0;
}
