import { TokenBuckets } from './token-buckets.js';

/**
 * Lines an agent's requests may add to the host's log: each key gets `perSecond` lines with bursts
 * of ten seconds' worth; past that its lines are counted, not written, and the next line written
 * says how many were left out. An agent decides how many requests it makes, so without this it
 * would decide how fast the host's log (and its disk) grows.
 */
export class LogBudget {
  readonly #buckets: TokenBuckets;
  readonly #skipped = new Map<string, number>();

  constructor(perSecond: number, now: () => number) {
    this.#buckets = new TokenBuckets(perSecond, perSecond * 10, now);
  }

  /** Whether a line for `key` may be written now, with how many were left out before it. */
  admit(key: string): { write: false } | { write: true; skipped: number } {
    if (this.#buckets.take(key) > 0) {
      this.#skipped.set(key, (this.#skipped.get(key) ?? 0) + 1);
      return { write: false };
    }
    const skipped = this.#skipped.get(key) ?? 0;
    this.#skipped.delete(key);
    return { write: true, skipped };
  }
}
