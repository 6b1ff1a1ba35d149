import {
  type AgentTool,
  fenceUntrusted,
  meshEventSchema,
  subscriptionSchema,
  topicPatternSchema,
} from '@openlegion/protocol';
import { z } from 'zod';
import { guardTool } from '../tool-failure.js';
import type { MeshClient } from './mesh-client.js';
import { frameJson } from './mesh-events.js';

/** The longest a tool waits for events: a turn is not a place to idle, a `lane` subscription is. */
export const MAX_EVENT_WAIT_S = 300;
/** After a first event, the read ends once no other came for this long (the backlog comes at once). */
const SETTLE_MS = 200;

const subscribeInput = z.object({
  pattern: topicPatternSchema.describe('Topics to hear: research.done, research.* or research.#'),
  delivery: z
    .enum(['lane', 'stream'])
    .default('lane')
    .describe(
      'lane (default): each event wakes you as a message, even when idle; stream: events wait until you read them with pubsub_next',
    ),
});
const unsubscribeInput = z.object({ id: z.number().int().positive().describe('The subscription id') });
const nextInput = z.object({
  subscription: z.number().int().positive().describe('A stream subscription of yours'),
  max: z.number().int().min(1).max(50).default(10).describe('Most events to return'),
  wait_s: z
    .number()
    .int()
    .min(0)
    .max(MAX_EVENT_WAIT_S)
    .default(30)
    .describe('Seconds to wait when no event is there yet (0: only what is waiting)'),
});

const oneAnswer = z.object({ subscription: subscriptionSchema });
const listAnswer = z.object({ subscriptions: z.array(subscriptionSchema) });

/**
 * `subscribe`, `unsubscribe`, `subscriptions` and `pubsub_next`: the agent's own durable pub/sub
 * subscriptions (the host checks `permissions.pubsub.subscribe`). A `lane` subscription wakes the
 * agent with each event; a `stream` one keeps events until `pubsub_next` reads and acknowledges them.
 */
export function createSubscriptionTools(mesh: MeshClient): AgentTool[] {
  const subscribe: AgentTool<z.infer<typeof subscribeInput>> = {
    name: 'subscribe',
    group: 'mesh',
    description:
      'Subscribe to pub/sub topics so events other agents publish reach you. Subscribing to the same pattern again keeps its place.',
    input: subscribeInput,
    run: (input, context) =>
      guardTool(async () => {
        const { subscription } = oneAnswer.parse(
          await mesh.call({
            method: 'POST',
            path: '/mesh/pubsub/subscriptions',
            body: { pattern: input.pattern, delivery: input.delivery },
            signal: context.signal,
            traceId: context.traceId,
          }),
        );
        const how =
          subscription.delivery === 'lane'
            ? 'each event will arrive as a message'
            : `read events with pubsub_next (subscription ${subscription.id})`;
        return `subscribed to ${subscription.pattern} (subscription ${subscription.id}); ${how}`;
      }),
  };
  const unsubscribe: AgentTool<z.infer<typeof unsubscribeInput>> = {
    name: 'unsubscribe',
    group: 'mesh',
    description: 'End one of your pub/sub subscriptions (ids from subscriptions).',
    input: unsubscribeInput,
    run: (input, context) =>
      guardTool(async () => {
        await mesh.call({
          method: 'DELETE',
          path: `/mesh/pubsub/subscriptions/${input.id}`,
          signal: context.signal,
          traceId: context.traceId,
        });
        return `unsubscribed (subscription ${input.id})`;
      }),
  };
  const list: AgentTool<Record<string, never>> = {
    name: 'subscriptions',
    group: 'mesh',
    description: 'List your pub/sub subscriptions: id, topic pattern, delivery and the last event taken.',
    input: z.object({}),
    run: (_input, context) =>
      guardTool(async () => {
        const { subscriptions } = listAnswer.parse(
          await mesh.call({
            method: 'GET',
            path: '/mesh/pubsub/subscriptions',
            signal: context.signal,
            traceId: context.traceId,
          }),
        );
        if (subscriptions.length === 0) return 'no subscriptions';
        return subscriptions
          .map((s) => `${s.id}: ${s.pattern} (${s.delivery}, last event taken ${s.cursor})`)
          .join('\n');
      }),
  };
  const next: AgentTool<z.infer<typeof nextInput>> = {
    name: 'pubsub_next',
    group: 'mesh',
    description:
      'Read the next events of one of your stream subscriptions (waiting up to wait_s for one), and mark them read.',
    input: nextInput,
    run: (input, context) =>
      guardTool(async () => {
        const frames = await mesh.events({
          path: `/mesh/pubsub/stream?subscription=${input.subscription}`,
          // A wait of 0 still lets the waiting backlog arrive.
          waitMs: Math.max(input.wait_s * 1000, 1_000),
          max: input.max,
          settleMs: SETTLE_MS,
          signal: context.signal,
          traceId: context.traceId,
        });
        const events = frames
          .filter((frame) => frame.event === 'event')
          .map((frame) => meshEventSchema.safeParse(frameJson(frame)))
          .flatMap((parsed) => (parsed.success ? [parsed.data] : []));
        const last = events.at(-1);
        if (!last) return `no events on subscription ${input.subscription} within ${input.wait_s} s`;
        await mesh.call({
          method: 'POST',
          path: '/mesh/pubsub/ack',
          body: { subscription: input.subscription, event_id: last.id },
          signal: context.signal,
          traceId: context.traceId,
        });
        const lines = events.map(
          (event) =>
            `event ${event.id} on ${event.topic} from ${event.published_by}: ${JSON.stringify(event.payload)}`,
        );
        return `${events.length} events (read up to ${last.id})\n${fenceUntrusted('pub/sub events', lines.join('\n'))}`;
      }),
  };
  return [subscribe, unsubscribe, list, next] as AgentTool[];
}
