import type { Clock } from '@openlegion/infra/clock';

/** How long a key the provider refused (401/403) is set aside. */
export const REFUSED_KEY_MS = 3_600_000;

/**
 * The keys of providers with several (`api_keys`): used in turn, call by call; a key the provider
 * refuses is set aside for an hour and the next one is used.
 */
export class KeyRing {
  readonly #clock: Clock;
  readonly #turn = new Map<string, number>();
  readonly #setAside = new Map<string, number>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** The key reference to use for this call: the next live one in turn (the first when all are set aside). */
  pick(provider: string, references: readonly string[]): string | undefined {
    const live = this.live(references);
    const pool = live.length > 0 ? live : references;
    const turn = this.#turn.get(provider) ?? 0;
    this.#turn.set(provider, turn + 1);
    return pool[turn % pool.length];
  }

  live(references: readonly string[]): string[] {
    const now = this.#clock.now();
    return references.filter((reference) => (this.#setAside.get(reference) ?? 0) <= now);
  }

  setAside(reference: string): void {
    this.#setAside.set(reference, this.#clock.now() + REFUSED_KEY_MS);
  }
}
