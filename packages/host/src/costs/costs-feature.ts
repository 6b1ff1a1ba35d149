import { parseRequest } from '@openlegion/infra/http';
import type { CostsReport } from '@openlegion/protocol';
import { z } from 'zod';
import type { HostFeature } from '../features/index.js';
import { BudgetGate } from './budget-gate.js';
import { CostMeter } from './cost-meter.js';
import { COST_MIGRATIONS, UsageLog, type UsageRecord } from './usage-log.js';

const DAY_MS = 86_400_000;
const costsQuery = z.object({ agent: z.string().min(1).optional() });

export interface CostsFeature extends HostFeature {
  meter(): CostMeter;
  usage(): UsageLog;
}

/** LLM costs and budgets: usage per call in mesh.db, reservations against budgets, `/api/costs`. */
export function costsFeature(options: { onRecorded?: (usage: UsageRecord) => void } = {}): CostsFeature {
  let state: { log: UsageLog; gate: BudgetGate; meter: CostMeter } | undefined;
  const current = () => {
    if (!state) throw new Error('costs are used before the host database is open');
    return state;
  };
  return {
    name: 'costs',
    migrations: COST_MIGRATIONS,
    meter: () => current().meter,
    usage: () => current().log,
    init(context) {
      const log = new UsageLog(context.db);
      const now = () => context.clock.now();
      const gate = new BudgetGate(context.config, log, now);
      const meter = new CostMeter({
        config: context.config,
        log,
        gate,
        now,
        warn: (message) => context.warn(message),
        onRecorded: options.onRecorded,
      });
      state = { log, gate, meter };
    },
    async stop() {
      await state?.log.close();
    },
    routes(app, context) {
      app.get('/api/costs', { config: { auth: 'operator' } }, async (request): Promise<CostsReport> => {
        const { agent } = parseRequest(costsQuery, request.query, 'query');
        const { log, gate } = current();
        const now = context.clock.now();
        const today = Math.floor(now / DAY_MS) * DAY_MS;
        const date = new Date(now);
        const month = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
        const budgets = Object.entries(context.config.agents)
          .filter(([name]) => agent === undefined || name === agent)
          .map(([name, { budget }]) => ({
            agent: name,
            daily_usd: budget.daily_usd ?? null,
            monthly_usd: budget.monthly_usd ?? null,
            spent_today_usd: log.spent(name, today),
            spent_month_usd: log.spent(name, month),
            in_flight_usd: gate.inFlight(name),
          }));
        return { today: log.spend(today, agent), month: log.spend(month, agent), budgets };
      });
    },
  };
}
