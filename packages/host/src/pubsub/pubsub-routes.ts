import { parseRequest } from '@openlegion/infra/http';
import { encodeSseFrame } from '@openlegion/infra/sse';
import {
  type MeshConfig,
  type MeshEvent,
  OpenLegionError,
  patternProblem,
  publishRequestSchema,
  pubsubEventsQuerySchema,
  subscribeRequestSchema,
  TRACE_HEADER,
} from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireAgent } from '../auth/index.js';
import type { MeshPermissions } from '../permissions/index.js';
import {
  type AgentSlots,
  type AgentWriteRate,
  boundedBody,
  endWithHost,
  openHostStream,
} from '../server/index.js';
import type { Pubsub } from './pubsub.js';
import type { PubsubStore, Subscription } from './pubsub-store.js';

/** Events read from the log at a time while a stream replays its backlog. */
const REPLAY_BATCH = 100;
const idParams = z.object({ id: z.coerce.number().int().positive() });
const streamQuery = z.object({ subscription: z.coerce.number().int().positive() });
const ackBody = z
  .object({ subscription: z.number().int().positive(), event_id: z.number().int().positive() })
  .strict();

interface PubsubRouteDeps {
  pubsub: () => Pubsub;
  store: () => PubsubStore;
  permissions: () => MeshPermissions;
  now: () => number;
  /** Aborts when the host stops: open streams end then. */
  stopping: AbortSignal;
  /** Each agent's open streams (a pub/sub stream takes one) and the bounds from mesh.yaml. */
  streams: AgentSlots;
  /** How fast each agent may publish (its share of the host's write path). */
  writes: AgentWriteRate;
  limits: MeshConfig['limits'];
}

/** `/mesh/pubsub/*` for agents (within their permissions) and `/api/pubsub/*` for the operator. */
export function registerPubsubRoutes(app: FastifyInstance, deps: PubsubRouteDeps): void {
  const agentAuth = { auth: 'agent' } as const;
  const operator = { auth: 'operator' } as const;
  const own = (agent: string, id: number): Subscription => {
    const subscription = deps.store().subscription(id);
    if (!subscription || subscription.agent !== agent)
      throw new OpenLegionError('NOT_FOUND', `agent "${agent}" has no subscription ${id}`, {
        details: { id },
      });
    return subscription;
  };

  const publishBody = boundedBody(
    deps.limits.pubsub_payload_bytes,
    'payload',
    'limits.pubsub_payload_bytes',
    deps.writes,
  );
  app.post('/mesh/pubsub/publish', { config: agentAuth, ...publishBody }, async (request, reply) => {
    const agent = requireAgent(request);
    const { topic, payload } = parseRequest(publishRequestSchema, request.body);
    deps.permissions().require(agent, 'pubsub.publish', topic);
    const event = await deps.pubsub().publish(topic, payload, agent, traceIdOf(request.headers));
    return reply.code(201).send({ event });
  });

  app.post('/mesh/pubsub/subscriptions', { config: agentAuth }, async (request, reply) => {
    const agent = requireAgent(request);
    const { pattern, delivery } = parseRequest(subscribeRequestSchema, request.body);
    deps.permissions().require(agent, 'pubsub.subscribe', pattern);
    const subscription = deps.store().subscribe(agent, pattern, delivery, deps.now());
    return reply.code(201).send({ subscription });
  });

  app.get('/mesh/pubsub/subscriptions', { config: agentAuth }, async (request) => ({
    subscriptions: deps.store().subscriptions(requireAgent(request)),
  }));

  app.delete('/mesh/pubsub/subscriptions/:id', { config: agentAuth }, async (request) => {
    const { id } = parseRequest(idParams, request.params, 'params');
    own(requireAgent(request), id);
    deps.store().unsubscribe(id);
    return { deleted: id };
  });

  app.post('/mesh/pubsub/ack', { config: agentAuth }, async (request) => {
    const body = parseRequest(ackBody, request.body);
    own(requireAgent(request), body.subscription);
    deps.store().advance(body.subscription, body.event_id);
    return { subscription: deps.store().subscription(body.subscription) };
  });

  // At least once: events after the cursor first, then live ones; each unacked event comes again
  // on the next stream. Frames: `id: <event id>`, `event: event`.
  app.get('/mesh/pubsub/stream', { config: agentAuth }, async (request, reply) => {
    const { subscription: id } = parseRequest(streamQuery, request.query, 'query');
    const agent = requireAgent(request);
    const subscription = own(agent, id);
    const problem = patternProblem(subscription.pattern, 'topic');
    if (problem)
      throw new OpenLegionError(
        'REQUEST_INVALID',
        `subscription ${id} was made before patterns were bounded: ${problem}; delete it and subscribe again`,
        { details: { id } },
      );
    // Compiled once for the stream; the agent's permission is checked before its pattern runs.
    const matches = deps.pubsub().owedTopics(subscription);
    const stream = openHostStream(reply, { agent, slots: deps.streams, limits: deps.limits });
    let sent = subscription.cursor;
    const send = (event: MeshEvent) => {
      if (event.id <= sent || !deps.pubsub().mayHear(subscription, event)) return;
      sent = event.id;
      stream.send(encodeSseFrame({ id: String(event.id), event: 'event', data: JSON.stringify(event) }));
    };
    let live = false;
    const stop = deps.pubsub().listen((event) => {
      if (live && matches(event.topic)) send(event);
    });
    endWithHost(stream, deps.stopping, stop);
    stream.send(': subscribed\n\n');
    // The backlog goes out as the reader takes it (never more than half its bound queued), so a long
    // one neither piles up in memory nor trips the slow-reader bound. Live events start in the same
    // tick as the last, empty, batch: none falls between.
    let after = subscription.cursor;
    for (;;) {
      const batch = deps.store().eventsAfter(after, matches, REPLAY_BATCH);
      if (batch.length === 0) break;
      for (const event of batch) {
        send(event);
        after = event.id;
        if (stream.backlog > deps.limits.stream_backlog_bytes / 2) await stream.drained();
        if (stream.signal.aborted || deps.stopping.aborted) return;
      }
    }
    live = true;
  });

  app.post('/api/pubsub/publish', { config: operator }, async (request, reply) => {
    const { topic, payload } = parseRequest(publishRequestSchema, request.body);
    const event = await deps.pubsub().publish(topic, payload, 'operator', traceIdOf(request.headers));
    return reply.code(201).send({ event });
  });

  app.get('/api/pubsub/events', { config: operator }, async (request) => {
    const { topic, limit } = parseRequest(pubsubEventsQuerySchema, request.query, 'query');
    return { events: deps.store().recent(limit, topic) };
  });

  app.get('/api/pubsub/subscriptions', { config: operator }, async () => ({
    subscriptions: deps.store().subscriptions(),
  }));
}

/** The trace id a caller passes along ({@link TRACE_HEADER}), when it is a sane one. */
function traceIdOf(headers: Record<string, string | string[] | undefined>): string | null {
  const value = headers[TRACE_HEADER];
  return typeof value === 'string' && /^[\w.:-]{1,100}$/.test(value) ? value : null;
}
