import type { FailureClass } from '../llm/index.js';

/**
 * One provider call that did not give results, with the class failover cools the provider down by
 * (the LLM proxy's classes: `auth` for a refused or missing key, `rate` for 429, `server` for 5xx,
 * timeouts, unreachable and malformed answers). `reason` is written for the operator and the model;
 * it never holds a key.
 */
export class ProviderFailure extends Error {
  override readonly name = 'ProviderFailure';
  readonly failure: FailureClass;
  readonly retryAfterMs: number | undefined;
  /** False when nothing was sent (a key not in the vault): looked at again on the next search. */
  readonly coolsDown: boolean;

  constructor(
    failure: FailureClass,
    reason: string,
    options: { retryAfterMs?: number; cause?: unknown; coolsDown?: boolean } = {},
  ) {
    super(reason, { cause: options.cause });
    this.failure = failure;
    this.retryAfterMs = options.retryAfterMs;
    this.coolsDown = options.coolsDown ?? true;
  }
}
