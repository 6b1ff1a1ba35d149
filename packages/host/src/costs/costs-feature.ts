import { parseRequest } from '@openlegion/infra/http';
import type { CostsReport } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { FeatureContext, HostFeature } from '../features/index.js';
import { TEMPORARY_AGENT_JOINED, TEMPORARY_AGENT_LEFT } from '../fleet/index.js';
import { BillingOwners } from './billing-owners.js';
import { BudgetGate } from './budget-gate.js';
import { CostMeter } from './cost-meter.js';
import { COST_METER, USAGE_LOG, USAGE_RECORDED } from './costs-keys.js';
import { COST_MIGRATIONS, UsageLog } from './usage-log.js';

const DAY_MS = 86_400_000;
const costsQuery = z.object({ agent: z.string().min(1).optional() });

/**
 * LLM costs and budgets: usage per call in mesh.db, reservations against budgets, `/api/costs`.
 * Provides the cost meter and the usage log; tells the bus of each recorded call. A temporary agent
 * an agent spawns is billed to its spawner from the moment it joins (heard on the bus).
 */
export function costsFeature(): HostFeature {
  return {
    name: 'costs',
    migrations: COST_MIGRATIONS,
    provides: [COST_METER, USAGE_LOG],
    build(context) {
      const log = new UsageLog(context.db);
      const now = () => context.clock.now();
      const owners = new BillingOwners(context.db);
      const ownerOf = (agent: string) => owners.ownerOf(agent);
      const gate = new BudgetGate(context.config, log, now, ownerOf);
      const stopJoined = context.events.on(TEMPORARY_AGENT_JOINED, ({ name, spawner }) =>
        owners.assign(name, spawner, now()),
      );
      const stopLeft = context.events.on(TEMPORARY_AGENT_LEFT, ({ name }) => {
        owners.forget(name);
        gate.forget(name);
      });
      const meter = new CostMeter({
        config: context.config,
        log,
        gate,
        ownerOf,
        now,
        warn: (message) => context.warn(message),
        onRecorded: (usage) => context.events.emit(USAGE_RECORDED, usage),
      });
      context.provide(COST_METER, meter);
      context.provide(USAGE_LOG, log);
      return {
        routes: (app) => registerCostRoutes(app, context, log, gate),
        stop: () => {
          stopJoined();
          stopLeft();
          return log.close();
        },
      };
    },
  };
}

function registerCostRoutes(
  app: FastifyInstance,
  context: FeatureContext,
  log: UsageLog,
  gate: BudgetGate,
): void {
  app.get('/api/costs', { config: { auth: 'operator' } }, async (request): Promise<CostsReport> => {
    const { agent } = parseRequest(costsQuery, request.query, 'query');
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
        spent_today_usd: gate.spentAgainst(name, today),
        spent_month_usd: gate.spentAgainst(name, month),
        in_flight_usd: gate.inFlight(name),
      }));
    return { today: log.spend(today, agent), month: log.spend(month, agent), budgets };
  });
}
