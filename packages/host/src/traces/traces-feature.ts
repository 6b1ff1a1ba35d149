import type { Timer } from '@openlegion/infra/clock';
import { parseRequest } from '@openlegion/infra/http';
import { OpenLegionError, SUBAGENT_HEADER, subagentPathSchema, TRACE_HEADER } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { APPROVAL_CHANGED } from '../approvals/index.js';
import { EGRESS_DECIDED, type EgressDecision } from '../egress/index.js';
import { type HostFeature, serviceKey } from '../features/index.js';
import { LANE_ITEM_CHANGED, LANE_TURN_RECALLED, type LaneItem, type LaneItemPhase } from '../lanes/index.js';
import { TRACE_MIGRATIONS, type TraceEvent, TraceLog } from './trace-log.js';

/** How long traces are kept. */
const KEEP_MS = 7 * 24 * 3_600_000;
const PRUNE_INTERVAL_MS = 60 * 60_000;
const TRACE_ID = /^[\w.:@-]{1,100}$/;
/** The agent reports its recall: a hop keeps this many memory ids and this much of an error, no more. */
const RECALL_HOP_MAX_IDS = 20;
const RECALL_HOP_MAX_ERROR_CHARS = 200;

/** The trace hops in mesh.db (`openlegion traces`). */
export const TRACE_LOG = serviceKey<TraceLog>('traces.log');

/**
 * Traces: a trace id is made where work enters (CLI, channel, cron, workflow, an agent's message)
 * and travels with it through the lanes to the agent, and from the agent on every call it makes to
 * the host (`x-trace-id`: LLM, mesh, egress). Each hop is stored; `openlegion traces [id]` shows them.
 * The lanes' and the egress proxy's hops come from the host's bus.
 */
export function tracesFeature(): HostFeature {
  return {
    name: 'traces',
    migrations: TRACE_MIGRATIONS,
    provides: [TRACE_LOG],
    build(context) {
      const log = new TraceLog(context.db, context.config.limits.trace_rows_per_agent);
      context.provide(TRACE_LOG, log);
      const record = (event: Omit<TraceEvent, 'at'>) => log.record({ ...event, at: context.clock.now() });
      context.events.on(LANE_ITEM_CHANGED, ({ item, phase }) => record(laneHop(item, phase)));
      context.events.on(LANE_TURN_RECALLED, ({ item, recall }) => record(recallHop(item, recall)));
      // A tool call that waits for the operator: when it started to wait and how it ended.
      context.events.on(APPROVAL_CHANGED, ({ approval, state }) => {
        if (approval.kind !== 'tool_call' || !approval.trace_id) return;
        record({
          trace_id: approval.trace_id,
          hop: `approval.${state === 'pending' ? 'waiting' : state}`,
          agent: approval.agent,
          detail: {
            id: approval.id,
            tool: approval.tool,
            ...(state === 'pending' ? {} : { ms: context.clock.now() - approval.waiting_since }),
          },
        });
      });
      context.events.on(EGRESS_DECIDED, (decision) => {
        if (decision.traceId) record(egressHop(decision, decision.traceId));
      });
      let prune: Timer | undefined;
      return {
        routes: (app) => registerTraceRoutes(app, record, log),
        start() {
          const sweep = () => {
            log.prune(context.clock.now() - KEEP_MS);
            prune = context.clock.setTimeout(sweep, PRUNE_INTERVAL_MS);
          };
          sweep();
        },
        stop() {
          prune?.cancel();
        },
      };
    },
  };
}

/** What the lanes tell about each item: queued, running, settled. */
function laneHop(item: LaneItem, phase: LaneItemPhase): Omit<TraceEvent, 'at'> {
  const hop = phase === 'settled' ? `lane.${item.state}` : `lane.${phase}`;
  return {
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
  };
}

/**
 * What the agent's automatic recall put into the turn's prompt. The agent wrote this report, so
 * only bounded facts are kept: memory ids (capped), sizes, time, and a clipped error.
 */
function recallHop(
  item: LaneItem,
  recall: {
    memories: { id: number }[];
    chars: number;
    tokens: number;
    ms: number;
    held: number;
    error?: string | undefined;
  },
): Omit<TraceEvent, 'at'> {
  return {
    trace_id: item.traceId,
    hop: 'agent.recall',
    agent: item.agent,
    detail: {
      memories: recall.memories.slice(0, RECALL_HOP_MAX_IDS).map((memory) => memory.id),
      chars: recall.chars,
      tokens: recall.tokens,
      ms: recall.ms,
      held: recall.held,
      ...(recall.error ? { error: recall.error.slice(0, RECALL_HOP_MAX_ERROR_CHARS) } : {}),
    },
  };
}

/** The egress proxy's decision on a connection made under a trace. */
function egressHop(decision: EgressDecision, traceId: string): Omit<TraceEvent, 'at'> {
  return {
    trace_id: traceId,
    hop: `egress ${decision.allowed ? 'allowed' : 'refused'}`,
    agent: decision.agent,
    detail: {
      host: decision.host,
      port: decision.port,
      ...(decision.reason ? { reason: decision.reason } : {}),
    },
  };
}

const traceParams = z.object({ id: z.string().regex(TRACE_ID) });
const recentQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(20) });

function registerTraceRoutes(
  app: FastifyInstance,
  record: (event: Omit<TraceEvent, 'at'>) => void,
  traces: TraceLog,
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
      detail: {
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        ...subagentOf(request.agent, request.headers[SUBAGENT_HEADER]),
      },
    });
  });
  const operator = { auth: 'operator' } as const;
  app.get('/api/traces', { config: operator }, async (request) => {
    const { limit } = parseRequest(recentQuery, request.query, 'query');
    return { traces: traces.recent(limit) };
  });
  app.get('/api/traces/:id', { config: operator }, async (request) => {
    const { id } = parseRequest(traceParams, request.params, 'params');
    const events = traces.events(id);
    if (events.length === 0)
      throw new OpenLegionError('NOT_FOUND', `no trace "${id}" (traces are kept 7 days)`, {
        details: { id },
      });
    return { trace_id: id, events };
  });
}

/**
 * The subagent an agent's call was made for (`x-subagent`: its chain of ids), so the trace shows
 * the tree; kept only in the strict shape of a path, and only from an agent.
 */
function subagentOf(agent: string | undefined, header: unknown): { subagent?: string; depth?: number } {
  if (agent === undefined || typeof header !== 'string') return {};
  const path = subagentPathSchema.safeParse(header);
  if (!path.success) return {};
  return { subagent: path.data, depth: path.data.split('/').length };
}
