import { errorFromBody, parseRequest } from '@openlegion/infra/http';
import { readChatEvents } from '@openlegion/infra/sse';
import {
  type ChatEvent,
  chatEventError,
  heartbeatResponseSchema,
  isOpenLegionError,
  OpenLegionError,
  steerResponseSchema,
} from '@openlegion/protocol';
import { formatTraceparent, otelTraceIdOf, turnSpanIdOf } from '../server/index.js';
import { type AgentChatDeps, openAgentChat, reachableAgent } from './agent-chat.js';
import type { LaneItem } from './lane-item.js';

/**
 * Run one lane item on its agent (`/chat`, or `/task` for tasks) and pass its events on.
 * Resolves with the reply text; an `error` event becomes a thrown OpenLegionError (the dispatcher
 * reports it once); a stream that breaks off becomes AGENT_NOT_READY (the agent went away).
 */
export async function runAgentTurn(
  deps: AgentTurnDeps,
  item: LaneItem,
  emit: (event: ChatEvent) => void,
  signal: AbortSignal,
  pending: Pending = { messages: 0, events: 0 },
): Promise<string> {
  if (item.kind === 'heartbeat') return runHeartbeat(deps, item, pending, emit, signal);
  const body =
    item.kind === 'task'
      ? { task: { task: item.message, conversation_id: item.conversationId, trace_id: item.traceId } }
      : { message: item.message, conversation_id: item.conversationId, trace_id: item.traceId };
  // The turn's span (telemetry writes it from the lane's facts): the agent's calls hang under it.
  const traceparent = formatTraceparent(otelTraceIdOf(item.traceId), turnSpanIdOf(item));
  const response = await openAgentChat(deps, item.agent, body, signal, traceparent);
  let reply: string | undefined;
  try {
    for await (const event of readChatEvents(response.body ?? [])) {
      if (event.type === 'error') {
        throw chatEventError(event);
      }
      if (event.type === 'done') reply = event.text;
      emit(event);
    }
  } catch (error) {
    if (isOpenLegionError(error) || signal.aborted) throw error;
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

/** What a turn takes to reach its agent (what waits for it comes as the turn's `pending`). */
export type AgentTurnDeps = AgentChatDeps;

/** What a heartbeat's free probe is told: lane items and events waiting for the agent. */
interface Pending {
  messages: number;
  events: number;
}

/**
 * A heartbeat: the agent probes for free (what the host says is pending, its HEARTBEAT.md) and
 * calls its LLM only when something is actionable. A silent or skipped beat yields no text.
 */
async function runHeartbeat(
  deps: AgentTurnDeps,
  item: LaneItem,
  pending: Pending,
  emit: (event: ChatEvent) => void,
  signal: AbortSignal,
): Promise<string> {
  const { url, token } = reachableAgent(deps, item.agent);
  const body = { pending_messages: pending.messages, pending_events: pending.events, trace_id: item.traceId };
  let response: Response;
  try {
    response = await deps.agentClient.heartbeat(url, token, body, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw new OpenLegionError(
      'AGENT_NOT_READY',
      `agent "${item.agent}" did not answer its heartbeat: ${String(error)}`,
    );
  }
  const text = await response.text();
  if (!response.ok) {
    throw errorFromBody(
      response.status,
      text,
      (status) =>
        new OpenLegionError('AGENT_NOT_READY', `agent "${item.agent}" answered its heartbeat with ${status}`),
    );
  }
  const beat = parseRequest(heartbeatResponseSchema, JSON.parse(text), 'heartbeat');
  emit({
    type: 'notice',
    message: beat.ran ? `heartbeat ran: ${beat.reason}` : `heartbeat skipped: ${beat.reason}`,
  });
  const reply = beat.ran && !beat.silent ? beat.reply : '';
  emit({ type: 'done', conversation_id: item.conversationId, text: reply });
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
