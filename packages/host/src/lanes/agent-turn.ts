import { readChatEvents } from '@openlegion/infra/sse';
import { type ChatEvent, isErrorCode, OpenLegionError, steerResponseSchema } from '@openlegion/protocol';
import { type AgentChatDeps, openAgentChat, reachableAgent } from './agent-chat.js';
import type { LaneItem } from './lane-item.js';

/**
 * Run one lane item on its agent (`/chat`, or `/task` for tasks) and pass its events on.
 * Resolves with the reply text; an `error` event becomes a thrown OpenLegionError (the dispatcher
 * reports it once); a stream that breaks off becomes AGENT_NOT_READY (the agent went away).
 */
export async function runAgentTurn(
  deps: AgentChatDeps,
  item: LaneItem,
  emit: (event: ChatEvent) => void,
  signal: AbortSignal,
): Promise<string> {
  const body =
    item.kind === 'task'
      ? { task: { task: item.message, conversation_id: item.conversationId, trace_id: item.traceId } }
      : { message: item.message, conversation_id: item.conversationId, trace_id: item.traceId };
  const response = await openAgentChat(deps, item.agent, body, signal);
  let reply: string | undefined;
  try {
    for await (const event of readChatEvents(response.body ?? [])) {
      if (event.type === 'error') {
        throw new OpenLegionError(isErrorCode(event.code) ? event.code : 'AGENT_LLM_FAILED', event.message);
      }
      if (event.type === 'done') reply = event.text;
      emit(event);
    }
  } catch (error) {
    if (error instanceof OpenLegionError || signal.aborted) throw error;
    throw new OpenLegionError(
      'AGENT_NOT_READY',
      `agent "${item.agent}" broke off its answer: ${String(error)}`,
      {
        cause: error,
      },
    );
  }
  if (reply === undefined) {
    throw new OpenLegionError(
      'AGENT_NOT_READY',
      `agent "${item.agent}" ended its answer without finishing the turn`,
    );
  }
  return reply;
}

/** Hand a message to the turn running in a conversation (`POST /chat/steer`); false when none runs. */
export async function steerAgent(
  deps: AgentChatDeps,
  agent: string,
  conversationId: string,
  message: string,
): Promise<boolean> {
  const { url, token } = reachableAgent(deps, agent);
  const response = await deps.agentClient.steer(url, token, { message, conversation_id: conversationId });
  if (!response.ok) return false;
  const parsed = steerResponseSchema.safeParse(await response.json().catch(() => undefined));
  return parsed.success && parsed.data.steered;
}
