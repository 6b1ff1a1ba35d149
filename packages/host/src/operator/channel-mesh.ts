import { parseRequest } from '@openlegion/infra/http';
import { type ChannelMesh, chatRequestSchema } from '@openlegion/protocol';
import type { Approvals } from '../approvals/index.js';
import type { OperatorNotices } from '../features/index.js';
import type { Lanes } from '../lanes/index.js';
import { type AgentRegistry, toAgentInfo } from '../registry/index.js';

/** The started host's services a channel reaches (channels start once the host has started). */
export interface ChannelMeshDeps {
  lanes: () => Lanes;
  registry: () => AgentRegistry;
  /** What waits for the operator (workflow steps, tool calls), and the decisions on them. */
  approvals: () => Pick<Approvals, 'pending' | 'decide'>;
  notices: OperatorNotices;
}

/**
 * The mesh as channels see it, in process: their chats go through the agents' lanes, their
 * approvals to the host's one list of approvals, and the operator's notices reach them as they happen.
 */
export function createChannelMesh({ lanes, registry, approvals, notices }: ChannelMeshDeps): ChannelMesh {
  return {
    agents: () => registry().list().map(toAgentInfo),
    async *chat(agent, request, signal) {
      const body = parseRequest(chatRequestSchema, request);
      const { item } = await lanes().enqueue({
        agent,
        message: body.message,
        conversationId: body.conversation_id,
        mode: request.mode ?? 'followup',
        source: 'channel',
        ...(body.trace_id ? { traceId: body.trace_id } : {}),
      });
      signal?.addEventListener('abort', () => lanes().cancel(item.id), { once: true });
      yield* lanes().follow(item);
    },
    interrupt: (agent) => lanes().interrupt(agent),
    pendingApprovals: () => approvals().pending(),
    async decideApproval(decision) {
      await approvals().decide(decision);
    },
    onNotice: (listener) => notices.subscribe(listener),
  };
}
