import { type MeshConfig, OpenLegionError } from '@openlegion/protocol';
import type { UsageLog } from './usage-log.js';

const DAY_MS = 86_400_000;

/** What a call holds of its agent's budget while it runs. */
export interface Reservation {
  agent: string;
  usd: number;
  released: boolean;
}

const startOfUtcDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
/** The UTC month last asked about: every call asks, and a Date per call showed in profiles. */
let lastMonth = { from: 0, to: 0 };
const utcMonthOf = (ms: number) => {
  if (ms < lastMonth.from || ms >= lastMonth.to) {
    const date = new Date(ms);
    lastMonth = {
      from: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1),
      to: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1),
    };
  }
  return lastMonth;
};
const startOfUtcMonth = (ms: number) => utcMonthOf(ms).from;
const startOfNextUtcMonth = (ms: number) => utcMonthOf(ms).to;
const usd = (value: number) => `$${value.toFixed(4)}`;

/**
 * Per-agent daily and monthly budgets (mesh.yaml `agents.NAME.budget`, UTC days and months),
 * enforced by reservation: a call reserves the most it could cost before it is forwarded, and
 * is refused when spent + reserved by calls in flight + that would pass a budget. Reserving is
 * synchronous, so any number of concurrent calls can never spend past a budget together. When the
 * call ends, its reservation is released and its real cost is in the usage log.
 */
export class BudgetGate {
  readonly #config: MeshConfig;
  readonly #log: UsageLog;
  readonly #now: () => number;
  readonly #inFlight = new Map<string, number>();
  /** What each agent spent in the current day and month, read from the log once per window. */
  readonly #spent = new Map<string, { day: number; dayUsd: number; month: number; monthUsd: number }>();

  constructor(config: MeshConfig, log: UsageLog, now: () => number) {
    this.#config = config;
    this.#log = log;
    this.#now = now;
  }

  /** Reserve `upperUsd` for `agent`; throws 402 BUDGET_EXCEEDED naming the budget and when it resets. */
  reserve(agent: string, upperUsd: number): Reservation {
    const budget = this.#config.agents[agent]?.budget;
    const now = this.#now();
    const inFlight = this.#inFlight.get(agent) ?? 0;
    const windows = [
      {
        name: 'daily',
        limit: budget?.daily_usd,
        since: startOfUtcDay(now),
        resets: startOfUtcDay(now) + DAY_MS,
      },
      {
        name: 'monthly',
        limit: budget?.monthly_usd,
        since: startOfUtcMonth(now),
        resets: startOfNextUtcMonth(now),
      },
    ];
    for (const window of windows) {
      if (window.limit === undefined) continue;
      const spent =
        window.name === 'daily' ? this.#spentSince(agent, now).dayUsd : this.#spentSince(agent, now).monthUsd;
      if (spent + inFlight + upperUsd > window.limit) {
        throw new OpenLegionError(
          'BUDGET_EXCEEDED',
          `agent "${agent}": this call could cost up to ${usd(upperUsd)}, but its ${window.name} budget of ${usd(window.limit)} has ${usd(Math.max(0, window.limit - spent - inFlight))} left (${usd(spent)} spent, ${usd(inFlight)} held by calls in flight); it resets at ${new Date(window.resets).toISOString()}`,
          {
            details: {
              agent,
              budget: window.name,
              limit_usd: window.limit,
              spent_usd: spent,
              in_flight_usd: inFlight,
              resets_at: new Date(window.resets).toISOString(),
            },
          },
        );
      }
    }
    this.#inFlight.set(agent, inFlight + upperUsd);
    return { agent, usd: upperUsd, released: false };
  }

  /** A call's real cost was recorded: count it in the agent's running totals. */
  recorded(agent: string, usd: number, at: number): void {
    const totals = this.#spentSince(agent, at);
    totals.dayUsd += usd;
    totals.monthUsd += usd;
  }

  /** The running totals of the day and month of `now` (loaded from the log when a window starts). */
  #spentSince(agent: string, now: number): { day: number; dayUsd: number; month: number; monthUsd: number } {
    const day = startOfUtcDay(now);
    const month = startOfUtcMonth(now);
    let totals = this.#spent.get(agent);
    if (!totals || totals.day !== day || totals.month !== month) {
      totals = { day, dayUsd: this.#log.spent(agent, day), month, monthUsd: this.#log.spent(agent, month) };
      this.#spent.set(agent, totals);
    }
    return totals;
  }

  release(reservation: Reservation): void {
    if (reservation.released) return;
    reservation.released = true;
    const left = (this.#inFlight.get(reservation.agent) ?? 0) - reservation.usd;
    if (left <= 1e-12) this.#inFlight.delete(reservation.agent);
    else this.#inFlight.set(reservation.agent, left);
  }

  /** What calls in flight hold of `agent`'s budget now. */
  inFlight(agent: string): number {
    return this.#inFlight.get(agent) ?? 0;
  }
}
