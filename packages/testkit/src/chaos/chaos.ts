/**
 * A seeded, bounded source of platform faults for channel chaos tests (Telegram, Discord, Slack):
 * which events a platform drops, delays, duplicates or replays, and which sends it fails. The
 * platform's fake applies the decisions in its own wire format; the same seed gives the same run
 * of decisions, so a failure is reproduced by its seed.
 */

/** mulberry32: a small, fast PRNG; good enough to pick faults, never for secrets. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** How often each fault happens (0..1 per event or send), and how long a delay may be. */
export interface ChaosRates {
  drop: number;
  delay: number;
  duplicate: number;
  replay: number;
  failSend: number;
  maxDelayMs: number;
}

/** How many of each fault a run injected (to assert the run was chaotic at all). */
export interface ChaosTally {
  dropped: number;
  delayed: number;
  duplicated: number;
  replayed: number;
  failedSends: number;
}

/**
 * A fault kind that has not happened after this many chances is forced on the next: every kind
 * happens in a run that gives each a few chances, whatever the seed and the timing.
 */
export const FORCE_AFTER_CHANCES = 6;

export const DEFAULT_CHAOS_RATES: ChaosRates = {
  drop: 0.15,
  delay: 0.3,
  duplicate: 0.15,
  replay: 0.15,
  failSend: 0.15,
  maxDelayMs: 150,
};

/**
 * The decisions of one chaos run.
 *
 * @example
 * const chaos = new Chaos(Number(process.env.CHAOS_SEED ?? 26));
 * telegram.setUpdateFilter(async (batch, history) => {
 *   await sleep(chaos.delayMs());
 *   return chaos.deliver(batch, history, { redeliver: true });
 * });
 */
export class Chaos {
  readonly tally: ChaosTally = { dropped: 0, delayed: 0, duplicated: 0, replayed: 0, failedSends: 0 };
  readonly rates: ChaosRates;
  readonly #random: () => number;
  readonly #chances: Record<keyof ChaosTally, number> = {
    dropped: 0,
    delayed: 0,
    duplicated: 0,
    replayed: 0,
    failedSends: 0,
  };

  constructor(
    readonly seed: number,
    rates: Partial<ChaosRates> = {},
  ) {
    this.rates = { ...DEFAULT_CHAOS_RATES, ...rates };
    this.#random = seededRandom(seed);
  }

  chance(probability: number): boolean {
    return this.#random() < probability;
  }

  /** Whether fault `kind` happens now (at `probability`, or forced: see {@link FORCE_AFTER_CHANCES}). */
  #fault(kind: keyof ChaosTally, probability: number): boolean {
    this.#chances[kind] += 1;
    const happens =
      this.chance(probability) || (this.tally[kind] === 0 && this.#chances[kind] >= FORCE_AFTER_CHANCES);
    if (happens) this.tally[kind] += 1;
    return happens;
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + Math.floor(this.#random() * (max - min + 1));
  }

  /**
   * A batch of events as the faulty platform hands it over. `redeliver: true` (Telegram: an
   * update stays pending until confirmed) drops by cutting the batch short: the dropped event and
   * those after it come again in a later batch. Otherwise a dropped event is gone (the platform's
   * own recovery, such as a gateway resume, must bring it back). Duplicates follow their original;
   * replays of events handed over before are appended.
   */
  deliver<T>(batch: readonly T[], delivered: readonly T[], options: { redeliver?: boolean } = {}): T[] {
    const out: T[] = [];
    for (const event of batch) {
      if (this.#fault('dropped', this.rates.drop)) {
        if (options.redeliver) break;
        continue;
      }
      out.push(event);
      if (this.#fault('duplicated', this.rates.duplicate)) {
        out.push(event);
      }
    }
    if (delivered.length > 0 && this.#fault('replayed', this.rates.replay)) {
      // An index inside `delivered` (not empty here), so an element, not undefined.
      out.push(delivered[this.between(0, delivered.length - 1)] as T);
    }
    return out;
  }

  /** How long to hold the next delivery (0 most of the time). */
  delayMs(): number {
    if (!this.#fault('delayed', this.rates.delay)) return 0;
    return this.between(1, this.rates.maxDelayMs);
  }

  /** Whether the next send or edit fails. */
  failSend(): boolean {
    return this.#fault('failedSends', this.rates.failSend);
  }
}

/**
 * Check exactly-once delivery as a person sees it: every message sent has one reply, no more.
 * `repliesTo` counts the bot's messages answering one sent message.
 */
export function exactlyOnce(
  sent: readonly string[],
  repliesTo: (message: string) => number,
): { missing: string[]; duplicated: string[] } {
  const missing: string[] = [];
  const duplicated: string[] = [];
  for (const message of sent) {
    const count = repliesTo(message);
    if (count === 0) missing.push(message);
    if (count > 1) duplicated.push(message);
  }
  return { missing, duplicated };
}
