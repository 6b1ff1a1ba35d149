import { parseRequest } from '@openlegion/infra/http';
import { readChatEvents } from '@openlegion/infra/sse';
import { type ChannelMesh, chatRequestSchema } from '@openlegion/protocol';
import { toAgentInfo } from '../registry/index.js';
import { type AgentChatDeps, openAgentChat } from './agent-chat.js';

/** The mesh as channels see it, in process: the same relay the operator's chat route uses. */
export function createChannelMesh(deps: AgentChatDeps): ChannelMesh {
  return {
    agents: () => deps.registry().list().map(toAgentInfo),
    async *chat(agent, request, signal) {
      const body = parseRequest(chatRequestSchema, request);
      const response = await openAgentChat(deps, agent, body, signal);
      if (!response.body) return;
      yield* readChatEvents(response.body);
    },
  };
}
