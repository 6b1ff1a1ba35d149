import type { Timer } from '@openlegion/infra/clock';
import { parseRequest } from '@openlegion/infra/http';
import { OpenLegionError, TRACE_HEADER } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { HostFeature } from '../features/index.js';
import type { LaneItem } from '../lanes/index.js';
import { TRACE_MIGRATIONS, type TraceEvent, TraceLog } from './trace-log.js';

/** How long traces are kept. */
const KEEP_MS = 7 * 24 * 3_600_000;
const PRUNE_INTERVAL_MS = 60 * 60_000;
const TRACE_ID = /^[\w.:@-]{1,100}$/;

export interface TracesFeature extends HostFeature {
  /** Record a hop (dropped quietly before the host database is open: tracing never fails work). */
  record(event: Omit<TraceEvent, 'at'>): void;
  /** What the lanes tell about each item: queued, running, settled. */
  laneItem(item: LaneItem, phase: 'queued' | 'running' | 'settled'): void;
  log(): TraceLog;
}

/**
 * Traces: a trace id is made where work enters (CLI, channel, cron, workflow, an agent's message)
 * and travels with it through the lanes to the agent, and from the agent on every call it makes to
 * the host (`x-trace-id`: LLM, mesh, egress). Each hop is stored; `openlegion traces [id]` shows them.
 */
export function tracesFeature(): TracesFeature {
  let log: TraceLog | undefined;
  let now = () => Date.now();
  let prune: Timer | undefined;
  const record = (event: Omit<TraceEvent, 'at'>) => log?.record({ ...event, at: now() });
  return {
    name: 'traces',
    migrations: TRACE_MIGRATIONS,
    record,
    laneItem(item, phase) {
      const hop = phase === 'settled' ? `lane.${item.state}` : `lane.${phase}`;
      record({
        trace_id: item.traceId,
        hop,
        agent: item.agent,
        detail: {
          item: item.id,
          source: item.source,
          ...(phase === 'queued' ? { mode: item.mode, kind: item.kind } : {}),
          ...(phase === 'running' ? { attempt: item.attempts } : {}),
          ...(phase === 'settled' && item.startedAt !== null && item.finishedAt !== null
            ? { ms: item.finishedAt - item.startedAt }
            : {}),
          ...(item.errorCode ? { error: item.errorCode } : {}),
        },
      });
    },
    log: () => {
      if (!log) throw new Error('traces are used before the host database is open');
      return log;
    },
    init(context) {
      log = new TraceLog(context.db, context.config.limits.trace_rows_per_agent);
      now = () => context.clock.now();
    },
    routes: (app) => registerTraceRoutes(app, record, () => log),
    start(context) {
      const sweep = () => {
        log?.prune(context.clock.now() - KEEP_MS);
        prune = context.clock.setTimeout(sweep, PRUNE_INTERVAL_MS);
      };
      sweep();
    },
    stop() {
      prune?.cancel();
    },
  };
}

const traceParams = z.object({ id: z.string().regex(TRACE_ID) });
const recentQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(20) });

function registerTraceRoutes(
  app: FastifyInstance,
  record: (event: Omit<TraceEvent, 'at'>) => void,
  log: () => TraceLog | undefined,
): void {
  // Every call an agent (or the operator) makes with a trace id is a hop of that trace: only calls
  // that proved who made them (a 401, a 404 or an `auth: 'none'` route writes nothing), named by
  // their route pattern, never the raw URL.
  app.addHook('onResponse', async (request, reply) => {
    const traceId = request.headers[TRACE_HEADER];
    const route = request.routeOptions.url;
    if (request.caller === undefined || route === undefined) return;
    if (typeof traceId !== 'string' || !TRACE_ID.test(traceId)) return;
    record({
      trace_id: traceId,
      hop: `http ${request.method} ${route}`,
      agent: request.agent ?? null,
      detail: { status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
    });
  });
  const operator = { auth: 'operator' } as const;
  const traces = () => {
    const current = log();
    if (!current) throw new Error('traces are used before the host database is open');
    return current;
  };
  app.get('/api/traces', { config: operator }, async (request) => {
    const { limit } = parseRequest(recentQuery, request.query, 'query');
    return { traces: traces().recent(limit) };
  });
  app.get('/api/traces/:id', { config: operator }, async (request) => {
    const { id } = parseRequest(traceParams, request.params, 'params');
    const events = traces().events(id);
    if (events.length === 0)
      throw new OpenLegionError('NOT_FOUND', `no trace "${id}" (traces are kept 7 days)`, {
        details: { id },
      });
    return { trace_id: id, events };
  });
}
