import { parseRequest } from '@openlegion/infra/http';
import { type ChannelMesh, chatRequestSchema } from '@openlegion/protocol';
import { toAgentInfo } from '../registry/index.js';
import type { Lanes } from './lanes.js';

/** The mesh as channels see it, in process: their chats go through the agents' lanes. */
export function createChannelMesh(lanes: Lanes): ChannelMesh {
  return {
    agents: () => lanes.registry().list().map(toAgentInfo),
    async *chat(agent, request, signal) {
      const body = parseRequest(chatRequestSchema, request);
      const { item } = await lanes.enqueue({
        agent,
        message: body.message,
        conversationId: body.conversation_id,
        mode: request.mode ?? 'followup',
        source: 'channel',
        ...(body.trace_id ? { traceId: body.trace_id } : {}),
      });
      signal?.addEventListener('abort', () => lanes.cancel(item.id), { once: true });
      yield* lanes.follow(item);
    },
    interrupt: (agent) => lanes.interrupt(agent),
  };
}
