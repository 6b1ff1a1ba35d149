import { parseRequest } from '@openlegion/infra/http';
import { encodeSseFrame, openSseResponse } from '@openlegion/infra/sse';
import { type ChatEvent, chatRequestSchema, OpenLegionError, TRACE_HEADER } from '@openlegion/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { LANE_MODES } from './lane-item.js';
import type { LaneRepository } from './lane-repository.js';
import type { Lanes } from './lanes.js';

/** The trace header older CLIs sent to the operator chat route (see the chat route). */
const LEGACY_TRACE_HEADER = 'x-openlegion-trace';
const agentParams = z.object({ agent: z.string().min(1) });
const itemParams = z.object({ id: z.coerce.number().int().positive() });
const operatorChatSchema = chatRequestSchema.extend({ mode: z.enum(LANE_MODES).default('followup') });
const recentQuery = z.object({
  agent: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/**
 * The operator's side of the lanes: chats go through the agent's lane (and stream back), the queue
 * can be listed, an item cancelled, a running turn interrupted.
 */
export function registerLaneRoutes(app: FastifyInstance, lanes: Lanes, repo: LaneRepository): void {
  const auth = { auth: 'operator' } as const;

  app.post('/api/agents/:agent/chat', { config: auth }, async (request, reply) => {
    const { agent } = parseRequest(agentParams, request.params, 'params');
    const body = parseRequest(operatorChatSchema, request.body);
    const { item } = await lanes.enqueue({
      agent,
      message: body.message,
      mode: body.mode,
      conversationId: body.conversation_id,
      // The operator from the dashboard's session, else from a bearer token (the CLI, a script).
      source: request.caller?.kind === 'operator' && request.caller.via === 'dashboard' ? 'dashboard' : 'cli',
      ...optional('idempotencyKey', header(request, 'idempotency-key')),
      // `x-openlegion-trace` is what CLIs before the one trace header sent: accepted for one more
      // version so an older CLI still links its trace; drop it in the release after.
      ...optional(
        'traceId',
        body.trace_id ?? header(request, TRACE_HEADER) ?? header(request, LEGACY_TRACE_HEADER),
      ),
    });
    const events = lanes.follow(item);
    // Wait for the first event: a failure before any still answers with its own status.
    const first = await events.next();
    reply.hijack();
    const stream = openSseResponse(reply.raw);
    stream.signal.addEventListener('abort', () => lanes.cancel(item.id), { once: true });
    const send = (event: ChatEvent) =>
      stream.send(encodeSseFrame({ event: event.type, data: JSON.stringify(event) }));
    if (!first.done) send(first.value);
    for await (const event of events) send(event);
    stream.end();
  });

  app.post('/api/agents/:agent/interrupt', { config: auth }, async (request) => {
    const { agent } = parseRequest(agentParams, request.params, 'params');
    lanes.interrupt(agent);
    return { ok: true };
  });

  app.get('/api/lanes', { config: auth }, async (request) => {
    const { agent, limit } = parseRequest(recentQuery, request.query, 'query');
    const items = repo.recent(limit, agent);
    return { items };
  });

  app.post('/api/lanes/:id/cancel', { config: auth }, async (request) => {
    const { id } = parseRequest(itemParams, request.params, 'params');
    // An unknown id is the caller's mistake (a 404 naming it), not a fault of the host (a 500).
    if (!repo.get(id))
      throw new OpenLegionError('MESH_LANE_ITEM_UNKNOWN', `no lane item ${id}; GET /api/lanes lists them`, {
        details: { id },
      });
    lanes.cancel(id);
    return { item: repo.require(id) };
  });
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function optional<Key extends string>(key: Key, value: string | undefined): { [K in Key]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [K in Key]?: string };
}
