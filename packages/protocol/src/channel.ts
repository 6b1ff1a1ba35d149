import type { ChatRequest } from './agent-api.js';
import type { ApprovalDecision, PendingApproval } from './approval.js';
import type { ChatEvent } from './chat-events.js';
import type { AgentInfo } from './host-api.js';
import type { OperatorNotice } from './workflow-run.js';

/**
 * What a chat channel (Telegram, later Discord, Slack) may do with the mesh. The CLI hands one to
 * each channel it starts; the host implements it in process, so a channel never holds a token.
 */
export interface ChannelMesh {
  /** The agents of the mesh and their state. */
  agents(): AgentInfo[];
  /**
   * Send a message to an agent and read its answer as it streams. Throws an OpenLegionError
   * (AGENT_UNKNOWN, AGENT_NOT_READY, AGENT_BUSY, ...) before the first event when it cannot start.
   */
  chat(agent: string, request: ChannelChatRequest, signal?: AbortSignal): AsyncIterable<ChatEvent>;
  /** End the agent's running turn (its next queued message runs next). */
  interrupt(agent: string): void;
  /** What waits for the operator's decision (workflow steps, agents' tool calls), oldest first. */
  pendingApprovals(): PendingApproval[];
  /** Approve or reject one by id; throws an OpenLegionError naming the problem (APPROVAL_UNKNOWN, ...). */
  decideApproval(decision: ApprovalDecision): Promise<void>;
  /** Call `listener` with each notice for the operator; returns the function that stops it. */
  onNotice(listener: (notice: OperatorNotice) => void): () => void;
}

/**
 * A chat from a channel. `mode` is how it meets a running turn: `followup` (default) queues it,
 * `steer` hands it to the running turn, `collect` merges quick messages, `interrupt` ends the turn.
 */
export type ChannelChatRequest = ChatRequest & { mode?: 'followup' | 'steer' | 'collect' | 'interrupt' };

/** A chat channel: started with the mesh, stopped before it. */
export interface Channel {
  /** Stable, e.g. `telegram`. */
  readonly name: string;
  start(mesh: ChannelMesh): Promise<void>;
  stop(): Promise<void>;
}
