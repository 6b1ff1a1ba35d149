import {
  type AgentInfo,
  type ApprovalDecision,
  type ChannelChatRequest,
  type ChannelMesh,
  type ChatEvent,
  OpenLegionError,
  type OperatorNotice,
  type PendingApproval,
} from '@openlegion/protocol';
import { readyAgentInfo } from '@openlegion/testkit';

/** One chat the fake mesh received. */
export interface FakeChat {
  agent: string;
  request: ChannelChatRequest;
}

type Responder = (agent: string, request: ChannelChatRequest) => ChatEvent[];

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
    return this.#names.map((name) => readyAgentInfo(name));
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

  /** What waits for approval; a decision removes it, one on another id fails as the host does. */
  readonly approvals: PendingApproval[] = [];
  readonly decisions: ApprovalDecision[] = [];
  readonly #noticeListeners = new Set<(notice: OperatorNotice) => void>();

  pendingApprovals(): PendingApproval[] {
    return [...this.approvals];
  }

  async decideApproval(decision: ApprovalDecision): Promise<void> {
    const at = this.approvals.findIndex(({ id }) => id === decision.id);
    if (at < 0)
      throw new OpenLegionError('APPROVAL_UNKNOWN', `nothing waits for approval under "${decision.id}"`);
    this.approvals.splice(at, 1);
    this.decisions.push(decision);
  }

  onNotice(listener: (notice: OperatorNotice) => void): () => void {
    this.#noticeListeners.add(listener);
    return () => this.#noticeListeners.delete(listener);
  }

  /** What the host does when a step starts waiting, or a workflow notifies. */
  notify(notice: OperatorNotice): void {
    if (notice.approval) this.approvals.push(notice.approval);
    for (const listener of this.#noticeListeners) listener(notice);
  }
}
