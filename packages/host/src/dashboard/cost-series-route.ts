import type { Clock } from '@openlegion/infra/clock';
import { parseRequest } from '@openlegion/infra/http';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { UsageLog } from '../costs/index.js';

const seriesQuery = z
  .object({
    /** How far back the chart goes: a day by default, at most a month (the monthly budget's span). */
    hours: z.coerce.number().int().min(1).max(744).default(24),
  })
  .strict();

/**
 * `GET /ui/api/costs/series?hours=24`: spend per agent and model over time, in buckets of about a
 * fiftieth of the span (at least a minute), for the dashboard's cost chart. `/api/costs` has the
 * totals and budgets; this only adds the time axis.
 */
export function registerCostSeries(app: FastifyInstance, usage: UsageLog, clock: Pick<Clock, 'now'>): void {
  app.get('/ui/api/costs/series', { config: { auth: 'operator' } }, async (request) => {
    const { hours } = parseRequest(seriesQuery, request.query, 'query');
    const spanMs = hours * 3_600_000;
    const bucketMs = Math.max(60_000, Math.ceil(spanMs / 50 / 60_000) * 60_000);
    const now = clock.now();
    return { since: now - spanMs, bucket_ms: bucketMs, points: usage.spendSeries(now - spanMs, bucketMs) };
  });
}
