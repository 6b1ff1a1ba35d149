import { type AgentTool, fenceUntrusted, meshEventSchema, topicSchema } from '@openlegion/protocol';
import { z } from 'zod';
import { guardTool } from '../tool-failure.js';
import type { MeshClient } from './mesh-client.js';

const DEFAULT_ASK_TIMEOUT_S = 120;
/** Extra time the HTTP call gets beyond the host's own wait for an answer. */
const ASK_MARGIN_MS = 10_000;

const publishInput = z.object({
  topic: topicSchema.describe('Dot-separated topic, e.g. research.done'),
  payload: z.unknown().describe('Any JSON value subscribers receive'),
});
const messageInput = z.object({
  to: z.string().min(1).describe('Name of the agent to message'),
  message: z.string().min(1).max(100_000).describe('What to tell or ask it, complete in itself'),
  mode: z
    .enum(['send', 'ask'])
    .default('send')
    .describe('send: hand it over and go on; ask: wait for its reply and return it'),
  timeout_s: z
    .number()
    .int()
    .positive()
    .max(3_600)
    .optional()
    .describe(`With mode ask: seconds to wait (default ${DEFAULT_ASK_TIMEOUT_S})`),
});

const publishAnswer = z.object({ event: meshEventSchema });
const sendAnswer = z.object({
  item_id: z.union([z.string(), z.number()]),
  to: z.string(),
  reply: z.string().optional(),
});

/** `publish` (an event on a pub/sub topic) and `message_agent` (send to or ask another agent). */
export function createMessageTools(mesh: MeshClient): AgentTool[] {
  const publish: AgentTool<z.infer<typeof publishInput>> = {
    name: 'publish',
    group: 'mesh',
    description:
      'Publish an event on a topic; agents subscribed to it are notified. For one named agent use message_agent.',
    input: publishInput,
    run: (input, context) =>
      guardTool(async () => {
        const { event } = publishAnswer.parse(
          await mesh.call({
            method: 'POST',
            path: '/mesh/pubsub/publish',
            body: { topic: input.topic, payload: input.payload ?? null },
            signal: context.signal,
            traceId: context.traceId,
          }),
        );
        return `published event ${event.id} on ${event.topic}`;
      }),
  };
  const message: AgentTool<z.infer<typeof messageInput>> = {
    name: 'message_agent',
    group: 'mesh',
    description:
      'Send a message to another agent of the mesh, or ask it something and wait for its reply (mode ask).',
    input: messageInput,
    run: (input, context) =>
      guardTool(async () => {
        const ask = input.mode === 'ask';
        const timeoutS = input.timeout_s ?? DEFAULT_ASK_TIMEOUT_S;
        const answer = sendAnswer.parse(
          await mesh.call({
            method: 'POST',
            path: '/mesh/messages',
            body: {
              to: input.to,
              message: input.message,
              mode: ask ? 'ask' : 'send',
              ...(ask ? { timeout_s: timeoutS } : {}),
            },
            signal: context.signal,
            traceId: context.traceId,
            ...(ask ? { timeoutMs: timeoutS * 1000 + ASK_MARGIN_MS } : {}),
          }),
        );
        if (!ask) return `sent to ${answer.to} (item ${answer.item_id}); it works on it in its own time`;
        return `${answer.to} replied:\n${fenceUntrusted(`agent ${answer.to}`, answer.reply ?? '')}`;
      }),
  };
  return [publish, message] as AgentTool[];
}
