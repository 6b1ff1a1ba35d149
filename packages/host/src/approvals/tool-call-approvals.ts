import { randomBytes } from 'node:crypto';
import type { Clock, Timer } from '@openlegion/infra/clock';
import {
  OpenLegionError,
  type ToolApprovalState,
  type ToolApprovalStatus,
  type ToolCallApproval,
} from '@openlegion/protocol';
import { argumentsPreview, displayText, TOOL_NAME_MAX_CHARS } from './arguments-preview.js';

/** How long a decided call's outcome stays readable, for an agent whose poll was in flight. */
const SETTLED_KEEP_MS = 120_000;
/**
 * Requests one agent may make in a minute, whatever became of them. A model asks for a handful of
 * gated calls a minute; more is a loop or a flood of the operator's channels (each request is a
 * notice, a Telegram message), which the pending cap alone does not stop (ask, withdraw, ask).
 */
export const REQUESTS_PER_AGENT_PER_MINUTE = 30;
const MINUTE_MS = 60_000;

export interface ToolCallApprovalsOptions {
  clock: Clock;
  /** mesh.yaml `approvals.timeout_ms`. */
  timeoutMs: number;
  /** mesh.yaml `approvals.max_pending_per_agent`. */
  maxPendingPerAgent: number;
  /** Strings never shown in a preview (the agent's own tokens). */
  secretsOf?: (agent: string) => readonly string[];
  /** Told each time a call starts to wait and when it ends (traces, notices). */
  onChange?: (approval: ToolCallApproval, state: ToolApprovalState, note?: string) => void;
}

interface HeldCall {
  approval: ToolCallApproval;
  state: ToolApprovalState;
  note?: string;
  timer: Timer;
  /** Long polls waiting for the decision. */
  waiters: Set<() => void>;
}

/**
 * Tool calls agents hold for the operator. Kept in memory: the agent waits on an open request, and
 * a host restart ends its turn anyway. Each agent may hold a few at once; each times out on its own.
 */
export class ToolCallApprovals {
  readonly #options: ToolCallApprovalsOptions;
  readonly #calls = new Map<string, HeldCall>();
  /** When each agent's recent requests were made (at most {@link REQUESTS_PER_AGENT_PER_MINUTE}). */
  readonly #recent = new Map<string, number[]>();

  constructor(options: ToolCallApprovalsOptions) {
    this.#options = options;
  }

  /** Hold a call of `agent` for the operator; APPROVAL_TOO_MANY past the agent's cap. */
  request(agent: string, call: { tool: string; arguments?: unknown; traceId?: string }): ToolCallApproval {
    const { clock, timeoutMs, maxPendingPerAgent } = this.#options;
    const waiting = [...this.#calls.values()].filter(
      (held) => held.approval.agent === agent && held.state === 'pending',
    ).length;
    if (waiting >= maxPendingPerAgent) {
      throw new OpenLegionError(
        'APPROVAL_TOO_MANY',
        `${agent} already has ${waiting} tool calls waiting for the operator (approvals.max_pending_per_agent: ${maxPendingPerAgent}); wait for a decision before asking again`,
        { details: { agent, pending: waiting, max: maxPendingPerAgent } },
      );
    }
    const now = clock.now();
    const recent = (this.#recent.get(agent) ?? []).filter((at) => at > now - MINUTE_MS);
    if (recent.length >= REQUESTS_PER_AGENT_PER_MINUTE) {
      throw new OpenLegionError(
        'APPROVAL_TOO_MANY',
        `${agent} asked for ${recent.length} approvals in the last minute (at most ${REQUESTS_PER_AGENT_PER_MINUTE}); wait before asking again`,
        { details: { agent, per_minute: REQUESTS_PER_AGENT_PER_MINUTE } },
      );
    }
    recent.push(now);
    this.#recent.set(agent, recent);
    const approval: ToolCallApproval = {
      kind: 'tool_call',
      id: `ap-${randomBytes(16).toString('hex')}`,
      waiting_since: now,
      expires_at: now + timeoutMs,
      agent,
      tool: displayText(call.tool, TOOL_NAME_MAX_CHARS),
      arguments_preview: argumentsPreview(call.arguments, this.#options.secretsOf?.(agent) ?? []),
      ...(call.traceId ? { trace_id: call.traceId } : {}),
    };
    const held: HeldCall = {
      approval,
      state: 'pending',
      waiters: new Set(),
      timer: clock.setTimeout(() => this.#settle(held, 'expired'), timeoutMs),
    };
    this.#calls.set(approval.id, held);
    this.#options.onChange?.(approval, 'pending');
    return approval;
  }

  /** The calls that wait, oldest first. */
  pending(): ToolCallApproval[] {
    return [...this.#calls.values()]
      .filter((held) => held.state === 'pending')
      .map((held) => held.approval)
      .sort((a, b) => a.waiting_since - b.waiting_since);
  }

  /** Where `agent`'s call stands; APPROVAL_UNKNOWN for an id that is not the agent's. */
  status(agent: string, id: string): ToolApprovalStatus {
    return statusOf(this.#own(agent, id));
  }

  /**
   * Where the call stands once it is decided, or after `maxMs` (a long poll: the agent asks
   * again), or when `signal` aborts (the agent left).
   */
  async wait(agent: string, id: string, maxMs: number, signal?: AbortSignal): Promise<ToolApprovalStatus> {
    const held = this.#own(agent, id);
    if (held.state === 'pending') {
      await new Promise<void>((resolve) => {
        const done = () => {
          timer.cancel();
          held.waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = this.#options.clock.setTimeout(done, maxMs);
        held.waiters.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
    return statusOf(held);
  }

  /** The operator's decision; false when no call of that id waits. */
  decide(id: string, decision: 'approve' | 'reject', note?: string): boolean {
    const held = this.#calls.get(id);
    if (held?.state !== 'pending') return false;
    this.#settle(held, decision === 'approve' ? 'approved' : 'rejected', note);
    return true;
  }

  /**
   * The agent no longer waits (its turn ended): the call leaves the operator's list, and its record
   * goes at once (the agent that withdrew needs no outcome). Returns where it stood.
   */
  withdraw(agent: string, id: string): ToolApprovalStatus {
    const held = this.#own(agent, id);
    if (held.state === 'pending') this.#settle(held, 'withdrawn');
    held.timer.cancel();
    this.#calls.delete(id);
    return statusOf(held);
  }

  /** End every wait (the host stops): pending calls are withdrawn. */
  stop(): void {
    for (const held of this.#calls.values()) {
      if (held.state === 'pending') this.#settle(held, 'withdrawn');
      held.timer.cancel();
    }
    this.#calls.clear();
    this.#recent.clear();
  }

  #own(agent: string, id: string): HeldCall {
    const held = this.#calls.get(id);
    // Another agent's id is answered exactly like an id that does not exist.
    if (!held || held.approval.agent !== agent)
      throw new OpenLegionError(
        'APPROVAL_UNKNOWN',
        `no tool call waits for approval under "${displayText(id, 80)}"`,
      );
    return held;
  }

  #settle(held: HeldCall, state: Exclude<ToolApprovalState, 'pending'>, note?: string): void {
    held.timer.cancel();
    held.state = state;
    if (note !== undefined) held.note = note;
    for (const wake of [...held.waiters]) wake();
    this.#options.onChange?.(held.approval, state, note);
    held.timer = this.#options.clock.setTimeout(() => this.#calls.delete(held.approval.id), SETTLED_KEEP_MS);
  }
}

function statusOf(held: HeldCall): ToolApprovalStatus {
  return {
    id: held.approval.id,
    state: held.state,
    expires_at: held.approval.expires_at,
    ...(held.note !== undefined ? { note: held.note } : {}),
  };
}
