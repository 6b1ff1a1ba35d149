import { type MeshConfig, OpenLegionError } from '@openlegion/protocol';
import type { UsageLog, UsageRecord } from './usage-log.js';

const DAY_MS = 86_400_000;

/** What a call holds of the budgets it draws on while it runs. */
export interface Reservation {
  agent: string;
  usd: number;
  /** The accounts it holds `usd` of: its payer's, and a temporary agent's own cap. */
  accounts: readonly string[];
  released: boolean;
}

/**
 * A budget and what counts against it: the payer's (`bill:`, every call billed to it, its
 * temporary agents' included) or a temporary agent's own template cap (`own:`, its own calls).
 */
interface Account {
  key: string;
  /** The agent whose `budget` applies. */
  holder: string;
  spent: (since: number) => number;
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
 * enforced by reservation. A temporary agent an agent spawned draws on its spawner's budget (its
 * `ownerOf`) and, when its template has a budget, on that too: a call must fit both. a call reserves the most it could cost before it is forwarded, and
 * is refused when spent + reserved by calls in flight + that would pass a budget. Reserving is
 * synchronous, so any number of concurrent calls can never spend past a budget together. When the
 * call ends, its reservation is released and its real cost is in the usage log.
 */
export class BudgetGate {
  readonly #config: MeshConfig;
  readonly #log: UsageLog;
  readonly #now: () => number;
  readonly #ownerOf: (agent: string) => string;
  readonly #inFlight = new Map<string, number>();
  /** What each agent spent in the current day and month, read from the log once per window. */
  readonly #spent = new Map<string, { day: number; dayUsd: number; month: number; monthUsd: number }>();

  /** `ownerOf`: whose budget an agent's calls are billed to (itself unless spawned by another). */
  constructor(
    config: MeshConfig,
    log: UsageLog,
    now: () => number,
    ownerOf: (agent: string) => string = (agent) => agent,
  ) {
    this.#config = config;
    this.#log = log;
    this.#now = now;
    this.#ownerOf = ownerOf;
  }

  /** The budgets a call of `agent` draws on: its payer's, then its own cap when another pays. */
  #accountsOf(agent: string, owner = this.#ownerOf(agent)): Account[] {
    const payer: Account = {
      key: `bill:${owner}`,
      holder: owner,
      spent: (since) => this.#log.billed(owner, since),
    };
    if (owner === agent) return [payer];
    return [payer, { key: `own:${agent}`, holder: agent, spent: (since) => this.#log.spent(agent, since) }];
  }

  /**
   * Reserve `upperUsd` for `agent` against each budget it draws on; throws 402 BUDGET_EXCEEDED
   * naming the budget (and, for a temporary agent, whose it is) and when it resets.
   */
  reserve(agent: string, upperUsd: number): Reservation {
    const now = this.#now();
    const accounts = this.#accountsOf(agent);
    for (const account of accounts) this.#check(agent, account, upperUsd, now);
    for (const { key } of accounts) this.#inFlight.set(key, (this.#inFlight.get(key) ?? 0) + upperUsd);
    return { agent, usd: upperUsd, accounts: accounts.map(({ key }) => key), released: false };
  }

  #check(agent: string, account: Account, upperUsd: number, now: number): void {
    const budget = this.#config.agents[account.holder]?.budget;
    const inFlight = this.#inFlight.get(account.key) ?? 0;
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
      const totals = this.#totals(account, now);
      const spent = window.name === 'daily' ? totals.dayUsd : totals.monthUsd;
      if (spent + inFlight + upperUsd > window.limit) {
        const whose =
          account.holder === agent
            ? `agent "${agent}": this call could cost up to ${usd(upperUsd)}, but its ${window.name} budget`
            : `agent "${agent}" is a temporary agent that draws on agent "${account.holder}"'s budget: this call could cost up to ${usd(upperUsd)}, but the ${window.name} budget of agent "${account.holder}"`;
        throw new OpenLegionError(
          'BUDGET_EXCEEDED',
          `${whose} of ${usd(window.limit)} has ${usd(Math.max(0, window.limit - spent - inFlight))} left (${usd(spent)} spent, ${usd(inFlight)} held by calls in flight); it resets at ${new Date(window.resets).toISOString()}`,
          {
            details: {
              agent,
              ...(account.holder === agent ? {} : { billed_to: account.holder }),
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
  }

  /** A call's real cost was recorded: count it in the running totals of each budget it drew on. */
  recorded(record: Pick<UsageRecord, 'agent' | 'billed_to' | 'cost_usd' | 'at'>): void {
    for (const account of this.#accountsOf(record.agent, record.billed_to)) {
      const totals = this.#totals(account, record.at);
      totals.dayUsd += record.cost_usd;
      totals.monthUsd += record.cost_usd;
    }
  }

  /** An account's totals for the day and month of `now` (loaded from the log when a window starts). */
  #totals(account: Account, now: number): { day: number; dayUsd: number; month: number; monthUsd: number } {
    const day = startOfUtcDay(now);
    const month = startOfUtcMonth(now);
    let totals = this.#spent.get(account.key);
    if (!totals || totals.day !== day || totals.month !== month) {
      totals = { day, dayUsd: account.spent(day), month, monthUsd: account.spent(month) };
      this.#spent.set(account.key, totals);
    }
    return totals;
  }

  release(reservation: Reservation): void {
    if (reservation.released) return;
    reservation.released = true;
    for (const key of reservation.accounts) {
      const left = (this.#inFlight.get(key) ?? 0) - reservation.usd;
      if (left <= 1e-12) this.#inFlight.delete(key);
      else this.#inFlight.set(key, left);
    }
  }

  /** `agent` left the fleet (a temporary agent that ended): its running totals are let go. */
  forget(agent: string): void {
    if (this.#inFlight.has(`bill:${agent}`) || this.#inFlight.has(`own:${agent}`)) return;
    this.#spent.delete(`bill:${agent}`);
    this.#spent.delete(`own:${agent}`);
  }

  /**
   * What calls in flight hold of `agent`'s budget now: of the budget it pays from when it pays for
   * itself (its temporary agents' calls included), else of its own template cap.
   */
  inFlight(agent: string): number {
    const owner = this.#ownerOf(agent);
    return this.#inFlight.get(owner === agent ? `bill:${agent}` : `own:${agent}`) ?? 0;
  }

  /** What counts against `agent`'s own budget since `since`: what is billed to it, or its own calls when another pays. */
  spentAgainst(agent: string, since: number): number {
    return this.#ownerOf(agent) === agent ? this.#log.billed(agent, since) : this.#log.spent(agent, since);
  }
}
