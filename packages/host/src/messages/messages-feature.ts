import { parseRequest } from '@openlegion/infra/http';
import { agentMessageSchema, chatEventError, OpenLegionError, TRACE_HEADER } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { requireAgent } from '../auth/index.js';
import type { FeatureContext, HostFeature } from '../features/index.js';
import { LANES, type LaneItem, type Lanes } from '../lanes/index.js';
import { MeshPermissions } from '../permissions/index.js';
import { registerSelfInboxRoutes } from './self-inbox-routes.js';

/** How long `ask` waits for the answer when the caller does not say. */
const DEFAULT_ASK_TIMEOUT_S = 120;

/** The text the receiving agent sees: who wrote, then the message. */
export const peerMessage = (from: string, message: string) => `Message from agent "${from}":\n\n${message}`;

/**
 * Agent messaging (`POST /mesh/messages`): `send` puts a message into the target's lane and
 * returns at once; `ask` also waits for the answer (504 MESH_ASK_TIMEOUT after `timeout_s`; the
 * work goes on and its result is kept in the lane). Agents never call each other directly, and
 * each message is permission-checked (`permissions.message`) and carries the caller's trace id.
 * `POST /mesh/self/inbox` puts a message into the caller's own lane, once per key.
 */
export function messagesFeature(options: { lanes?: Lanes } = {}): HostFeature {
  return {
    name: 'messages',
    needs: options.lanes ? [] : [LANES],
    build(context) {
      const lanes = options.lanes ?? context.need(LANES);
      return {
        routes: (app) => {
          registerMessageRoutes(app, context, lanes);
          registerSelfInboxRoutes(app, lanes);
        },
        start() {
          // A `send` has nowhere to go back to: its result stays in the lane (GET /api/lanes).
          lanes.deliverTo('agent', async () => {});
        },
      };
    },
  };
}

function registerMessageRoutes(app: FastifyInstance, context: FeatureContext, lanes: Lanes): void {
  const permissions = MeshPermissions.of(context.config);
  app.post('/mesh/messages', { config: { auth: 'agent' } }, async (request, reply) => {
    const from = requireAgent(request);
    const body = parseRequest(agentMessageSchema, request.body);
    permissions.require(from, 'message', body.to);
    const traceHeader = request.headers[TRACE_HEADER];
    const { item } = await lanes.enqueue({
      agent: body.to,
      message: peerMessage(from, body.message),
      conversationId: `agent:${from}`,
      source: 'agent',
      sourceRef: from,
      ...(typeof traceHeader === 'string' && traceHeader ? { traceId: traceHeader.slice(0, 100) } : {}),
    });
    if (body.mode === 'send')
      return reply.code(202).send({ item_id: item.id, trace_id: item.traceId, to: body.to });
    const timeoutMs = (body.timeout_s ?? DEFAULT_ASK_TIMEOUT_S) * 1000;
    const answer = await waitForAnswer(lanes, item, timeoutMs, context);
    return { item_id: item.id, trace_id: item.traceId, to: body.to, reply: answer };
  });
}

/** The text of the item's answer; its error as an OpenLegionError; MESH_ASK_TIMEOUT when it is late. */
async function waitForAnswer(
  lanes: Lanes,
  item: LaneItem,
  timeoutMs: number,
  context: FeatureContext,
): Promise<string> {
  const controller = new AbortController();
  const timer = context.clock.setTimeout(() => controller.abort(), timeoutMs);
  const late = new Promise<never>((_, reject) =>
    controller.signal.addEventListener(
      'abort',
      () =>
        reject(
          new OpenLegionError(
            'MESH_ASK_TIMEOUT',
            `agent "${item.agent}" did not answer within ${timeoutMs / 1000} s; its lane item ${item.id} goes on`,
            { details: { agent: item.agent, item_id: item.id } },
          ),
        ),
      { once: true },
    ),
  );
  const answered = (async () => {
    let text = '';
    for await (const event of lanes.follow(item)) {
      if (controller.signal.aborted) break;
      if (event.type === 'text_delta') text += event.text;
      if (event.type === 'done') return event.text || text;
      if (event.type === 'error') throw chatEventError(event);
    }
    return text;
  })();
  try {
    return await Promise.race([answered, late]);
  } finally {
    timer.cancel();
    controller.abort();
    answered.catch(() => {});
    late.catch(() => {});
  }
}
