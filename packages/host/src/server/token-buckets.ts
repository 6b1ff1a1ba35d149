interface Bucket {
  tokens: number;
  at: number;
}

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
    const now = this.#now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) * this.perSecond) / 1000);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return 0;
    }
    return Math.ceil(((cost - bucket.tokens) / this.perSecond) * 1000);
  }
}
