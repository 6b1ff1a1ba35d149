import type { Clock } from '@openlegion/infra/clock';
import { isOpenLegionError } from '@openlegion/protocol';

/** Why a call failed, as failover sees it. */
export type FailureClass = 'billing' | 'auth' | 'rate' | 'server' | 'request' | 'overflow';

const MINUTE = 60_000;
/** Cooldowns by class; the ladders step up with each failure in a row. */
const BILLING_MS = 60 * MINUTE;
const AUTH_MS = 60 * MINUTE;
const RATE_LADDER_MS = [30_000, MINUTE, 5 * MINUTE];
const RATE_RETRY_AFTER_CAP_MS = 120_000;
const SERVER_LADDER_MS = [MINUTE, 5 * MINUTE, 25 * MINUTE];

/** The failure class of an error from one upstream call. */
export function classify(error: unknown): FailureClass {
  if (!isOpenLegionError(error)) return 'server';
  if (error.code === 'LLM_CONTEXT_OVERFLOW') return 'overflow';
  const status = (error.details as { status?: number } | undefined)?.status;
  if (status === 402) return 'billing';
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate';
  if (error.code === 'LLM_PROVIDER_UNAVAILABLE') return 'server';
  return 'request';
}

/** Failover moves on after these; the others go back to the caller as they are. */
export const FAILS_OVER: ReadonlySet<FailureClass> = new Set(['billing', 'auth', 'rate', 'server']);

export interface ModelState {
  model: string;
  state: 'ok' | 'cooldown';
  /** ISO time the cooldown ends, when cooling down. */
  cooldown_until: string | null;
  last_failure: FailureClass | null;
  failures_in_a_row: number;
}

interface Health {
  cooldownUntil: number;
  strikes: number;
  last: FailureClass | null;
}

/**
 * Per-model health: a model that failed is skipped until its cooldown ends — billing errors for an
 * hour, a refused key for an hour, rate limits for their Retry-After (at most 2 minutes) or 30 s →
 * 1 min → 5 min, server errors and timeouts 1 → 5 → 25 min — and a success clears it.
 */
export class ModelHealthBoard {
  readonly #clock: Clock;
  readonly #health = new Map<string, Health>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  available(model: string): boolean {
    return (this.#health.get(model)?.cooldownUntil ?? 0) <= this.#clock.now();
  }

  cooldownUntil(model: string): number {
    return this.#health.get(model)?.cooldownUntil ?? 0;
  }

  /** Record a failure; returns the cooldown it got (0 for failures that do not cool a model down). */
  failed(model: string, failure: FailureClass, retryAfterMs?: number): number {
    if (!FAILS_OVER.has(failure)) return 0;
    const health = this.#health.get(model) ?? { cooldownUntil: 0, strikes: 0, last: null };
    const step = (ladder: number[]) => ladder[Math.min(health.strikes, ladder.length - 1)] ?? 0;
    const cooldown =
      failure === 'billing'
        ? BILLING_MS
        : failure === 'auth'
          ? AUTH_MS
          : failure === 'rate'
            ? retryAfterMs !== undefined
              ? Math.min(retryAfterMs, RATE_RETRY_AFTER_CAP_MS)
              : step(RATE_LADDER_MS)
            : step(SERVER_LADDER_MS);
    this.#health.set(model, {
      cooldownUntil: this.#clock.now() + cooldown,
      strikes: health.strikes + 1,
      last: failure,
    });
    return cooldown;
  }

  succeeded(model: string): void {
    this.#health.delete(model);
  }

  state(model: string): ModelState {
    const health = this.#health.get(model);
    const cooling = health !== undefined && health.cooldownUntil > this.#clock.now();
    return {
      model,
      state: cooling ? 'cooldown' : 'ok',
      cooldown_until: cooling ? new Date(health.cooldownUntil).toISOString() : null,
      last_failure: health?.last ?? null,
      failures_in_a_row: health?.strikes ?? 0,
    };
  }
}
