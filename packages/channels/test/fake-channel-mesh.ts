import {
  type AgentInfo,
  type ChannelChatRequest,
  type ChannelMesh,
  type ChatEvent,
  OpenLegionError,
} from '@openlegion/protocol';

/** One chat the fake mesh received. */
export interface FakeChat {
  agent: string;
  request: ChannelChatRequest;
}

type Responder = (agent: string, request: ChannelChatRequest) => ChatEvent[];

const agentInfo = (name: string): AgentInfo => ({
  name,
  state: 'ready',
  runtime: 'process',
  model: 'demo/scripted',
  url: null,
  container: null,
  started_at: null,
  ready_at: null,
  restarts: 0,
  last_error: null,
});

/**
 * A ChannelMesh for channel tests: named agents that answer with scripted events (by default
 * `echo: <message>`), recording every chat. Unknown agents throw AGENT_UNKNOWN as the host does.
 */
export class FakeChannelMesh implements ChannelMesh {
  readonly chats: FakeChat[] = [];
  readonly interrupts: string[] = [];
  respond: Responder = (_agent, request) => [
    { type: 'text_delta', text: `echo: ${request.message}` },
    { type: 'done', conversation_id: request.conversation_id ?? 'default', text: `echo: ${request.message}` },
  ];
  readonly #names: string[];

  constructor(names: string[] = ['researcher', 'writer']) {
    this.#names = names;
  }

  agents(): AgentInfo[] {
    return this.#names.map(agentInfo);
  }

  async *chat(agent: string, request: ChannelChatRequest, signal?: AbortSignal): AsyncIterable<ChatEvent> {
    if (!this.#names.includes(agent)) throw new OpenLegionError('AGENT_UNKNOWN', `no agent "${agent}"`);
    this.chats.push({ agent, request });
    for (const event of this.respond(agent, request)) {
      signal?.throwIfAborted();
      yield event;
    }
  }

  interrupt(agent: string): void {
    this.interrupts.push(agent);
  }
}
