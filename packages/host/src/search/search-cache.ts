import type { Clock } from '@openlegion/infra/clock';

/**
 * Answers kept for `ttlMs`, at most `maxEntries` of them: a Map in use order, the least recently
 * used dropped first, so no stream of distinct queries grows it past its bound.
 */
export class SearchCache<T> {
  readonly #entries = new Map<string, { value: T; expires: number }>();
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #maxEntries: number;

  constructor(options: { clock: Clock; ttlMs: number; maxEntries: number }) {
    this.#clock = options.clock;
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries;
  }

  get(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.expires <= this.#clock.now()) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: T): void {
    if (this.#ttlMs <= 0 || this.#maxEntries <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expires: this.#clock.now() + this.#ttlMs });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
