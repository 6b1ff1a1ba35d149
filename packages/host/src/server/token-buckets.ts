interface Bucket {
  tokens: number;
  at: number;
}

/** A reservation made, with how long to wait before using it, or refused, with when to ask again. */
export type Reservation = { ok: true; waitMs: number } | { ok: false; retryAfterMs: number };

/**
 * A token bucket per key: each refills at `perSecond` up to `burst` and starts full. The host
 * holds every agent to a rate with one of these (requests, bytes written, log lines); keys are
 * agent names, so the map is as large as the fleet.
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();
  readonly perSecond: number;
  readonly burst: number;
  readonly #now: () => number;

  constructor(perSecond: number, burst: number, now: () => number) {
    this.perSecond = perSecond;
    this.burst = burst;
    this.#now = now;
  }

  /** Spend `cost` from `key`'s bucket: 0 when spent, else the ms until it could be (nothing spent). */
  take(key: string, cost = 1): number {
    const reservation = this.reserve(key, cost, 0);
    return reservation.ok ? 0 : reservation.retryAfterMs;
  }

  /**
   * Spend `cost` now for use after the ms this returns (0: at once), borrowing up to `maxWaitMs` of
   * future refill (a bucket in debt makes the next one wait longer); when even that is not enough,
   * nothing is spent and the answer says when the wait would fit.
   */
  reserve(key: string, cost: number, maxWaitMs: number): Reservation {
    const bucket = this.#refilled(key);
    const waitMs = bucket.tokens >= cost ? 0 : ((cost - bucket.tokens) / this.perSecond) * 1000;
    if (waitMs > maxWaitMs) return { ok: false, retryAfterMs: Math.ceil(waitMs - maxWaitMs) };
    bucket.tokens -= cost;
    return { ok: true, waitMs: Math.ceil(waitMs) };
  }

  #refilled(key: string): Bucket {
    const now = this.#now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) * this.perSecond) / 1000);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    return bucket;
  }
}
