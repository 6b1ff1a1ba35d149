import { type ApprovalDecision, OpenLegionError, type PendingApproval } from '@openlegion/protocol';
import { displayText } from './arguments-preview.js';
import type { ToolCallApprovals } from './tool-call-approvals.js';

/**
 * Another feature's approvals (the workflows' steps that wait), offered through the one list. The
 * source keeps its own state; `decide` answers false for an id that is not its own.
 */
export interface ApprovalSource {
  readonly kind: PendingApproval['kind'];
  pending(): PendingApproval[];
  decide(decision: ApprovalDecision): Promise<boolean>;
}

/**
 * The host's one list of what waits for the operator, whatever it is: workflow steps (a source)
 * and agents' tool calls (held here). The REPL, the CLI, channels and the dashboard list and decide
 * through it; only the operator's routes and in-process channels reach `decide`.
 */
export class Approvals {
  readonly toolCalls: ToolCallApprovals;
  readonly #sources: ApprovalSource[] = [];

  constructor(toolCalls: ToolCallApprovals) {
    this.toolCalls = toolCalls;
  }

  /** Offer a feature's approvals (called while features are built). */
  addSource(source: ApprovalSource): void {
    this.#sources.push(source);
  }

  /** Everything that waits, oldest first. */
  pending(): PendingApproval[] {
    return [...this.toolCalls.pending(), ...this.#sources.flatMap((source) => source.pending())].sort(
      (a, b) => a.waiting_since - b.waiting_since,
    );
  }

  /** Approve or reject by id; APPROVAL_UNKNOWN when nothing waits under it. Returns what was decided. */
  async decide(decision: ApprovalDecision): Promise<PendingApproval> {
    const approval = this.pending().find((candidate) => candidate.id === decision.id);
    if (
      approval?.kind === 'tool_call' &&
      this.toolCalls.decide(decision.id, decision.decision, decision.note)
    )
      return approval;
    if (approval) {
      for (const source of this.#sources)
        if (source.kind === approval.kind && (await source.decide(decision))) return approval;
    }
    throw new OpenLegionError(
      'APPROVAL_UNKNOWN',
      `nothing waits for approval under "${displayText(decision.id, 120)}" (list them: openlegion approvals)`,
      { details: { id: decision.id } },
    );
  }
}
