import type { Clock } from '@openlegion/infra/clock';

/** How long a fetched page is reused. */
export const PAGE_CACHE_TTL_MS = 5 * 60 * 1000;
const PAGE_CACHE_ENTRIES = 32;

/** A small time-limited LRU cache of pages by URL. */
export class PageCache<Value> {
  readonly #entries = new Map<string, { value: Value; expiresAt: number }>();

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly ttlMs = PAGE_CACHE_TTL_MS,
    private readonly maxEntries = PAGE_CACHE_ENTRIES,
  ) {}

  get(key: string): Value | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= this.clock.now()) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: Value): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: this.clock.now() + this.ttlMs });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.maxEntries) break;
      this.#entries.delete(oldest);
    }
  }
}
