import type { ChatRequest } from './agent-api.js';
import type { ChatEvent } from './chat-events.js';
import type { AgentInfo } from './host-api.js';

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
  chat(agent: string, request: ChatRequest, signal?: AbortSignal): AsyncIterable<ChatEvent>;
}

/** A chat channel: started with the mesh, stopped before it. */
export interface Channel {
  /** Stable, e.g. `telegram`. */
  readonly name: string;
  start(mesh: ChannelMesh): Promise<void>;
  stop(): Promise<void>;
}
