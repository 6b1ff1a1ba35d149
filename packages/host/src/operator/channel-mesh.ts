import { parseRequest } from '@openlegion/infra/http';
import { type ChannelMesh, chatRequestSchema } from '@openlegion/protocol';
import type { OperatorNotices } from '../features/index.js';
import type { Lanes } from '../lanes/index.js';
import { type AgentRegistry, toAgentInfo } from '../registry/index.js';
import type { Workflows } from '../workflows/index.js';

/** The started host's services a channel reaches (channels start once the host has started). */
export interface ChannelMeshDeps {
  lanes: () => Lanes;
  registry: () => AgentRegistry;
  /** Approvals that wait, and the decisions on them. */
  workflows: () => Pick<Workflows, 'engine' | 'repository'>;
  notices: OperatorNotices;
}

/**
 * The mesh as channels see it, in process: their chats go through the agents' lanes, their
 * approvals to the workflow engine, and the operator's notices reach them as they happen.
 */
export function createChannelMesh({ lanes, registry, workflows, notices }: ChannelMeshDeps): ChannelMesh {
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
    pendingApprovals: () => workflows().repository.pendingApprovals(),
    decideApproval: ({ run, step, decision, note }) => workflows().engine[decision](run, step, note),
    onNotice: (listener) => notices.subscribe(listener),
  };
}
