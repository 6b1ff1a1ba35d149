import { z } from 'zod';

/**
 * One approval, whatever waits for it: a workflow step with `requires_approval`, or a tool call of
 * an agent whose `agents.NAME.approval` names the tool. The REPL, the CLI, Telegram and later the
 * dashboard list them (`GET /api/approvals`) and decide them by `id` alone.
 */
export const APPROVAL_KINDS = ['workflow_step', 'tool_call'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

/** A workflow step that waits for the operator; its id is `RUN:STEP` (see {@link workflowStepApprovalId}). */
export const workflowStepApprovalSchema = z.object({
  kind: z.literal('workflow_step'),
  id: z.string(),
  /** When it started waiting (ms since the epoch). */
  waiting_since: z.number(),
  run: z.string(),
  workflow: z.string(),
  step: z.string(),
});

/**
 * A tool call an agent holds until the operator says yes. The agent is untrusted: `tool` and
 * `arguments_preview` are bounded and stripped of control characters by the host before anyone
 * sees them, and values under secret-looking keys are never included.
 */
export const toolCallApprovalSchema = z.object({
  kind: z.literal('tool_call'),
  /** Unguessable (128 random bits). */
  id: z.string(),
  waiting_since: z.number(),
  /** When it is refused unless decided (ms since the epoch; mesh.yaml `approvals.timeout_ms`). */
  expires_at: z.number(),
  agent: z.string(),
  tool: z.string(),
  /** The call's arguments as one line of JSON, cut to a few hundred characters. */
  arguments_preview: z.string(),
  /** The trace the call runs under, when the agent sent one. */
  trace_id: z.string().optional(),
});

/** Something that waits for the operator's decision, oldest first in every list. */
export const pendingApprovalSchema = z.discriminatedUnion('kind', [
  workflowStepApprovalSchema,
  toolCallApprovalSchema,
]);
export type PendingApproval = z.infer<typeof pendingApprovalSchema>;
export type WorkflowStepApproval = z.infer<typeof workflowStepApprovalSchema>;
export type ToolCallApproval = z.infer<typeof toolCallApprovalSchema>;

/** The operator's answer to one approval. */
export interface ApprovalDecision {
  id: string;
  decision: 'approve' | 'reject';
  note?: string;
}

/** `POST /api/approvals/:id/approve|reject` body. */
export const approvalDecisionRequestSchema = z.object({ note: z.string().max(10_000).optional() }).strict();

/** The id of a workflow step's approval: run ids never hold a `:`, so the first one splits it. */
export function workflowStepApprovalId(run: string, step: string): string {
  return `${run}:${step}`;
}

/** The bounds of what an agent may send with a tool call's approval request. */
export const MAX_APPROVAL_TOOL_NAME_CHARS = 200;

/** `POST /mesh/approvals` (agent): hold this call for the operator. `arguments` is any JSON. */
export const toolApprovalRequestSchema = z
  .object({
    tool: z.string().min(1).max(MAX_APPROVAL_TOOL_NAME_CHARS),
    arguments: z.unknown().optional(),
  })
  .strict();

/** Where a tool call's approval stands. */
export const TOOL_APPROVAL_STATES = ['pending', 'approved', 'rejected', 'expired', 'withdrawn'] as const;
export type ToolApprovalState = (typeof TOOL_APPROVAL_STATES)[number];

/**
 * What the agent hears about its request: on `POST /mesh/approvals` and on each long poll
 * (`GET /mesh/approvals/:id`, which answers once it is decided or after a while).
 */
export const toolApprovalStatusSchema = z.object({
  id: z.string(),
  state: z.enum(TOOL_APPROVAL_STATES),
  expires_at: z.number(),
  /** The operator's note or reason, when they gave one. */
  note: z.string().optional(),
});
export type ToolApprovalStatus = z.infer<typeof toolApprovalStatusSchema>;

/** `GET /api/approvals`. */
export const approvalsAnswerSchema = z.looseObject({ approvals: z.array(pendingApprovalSchema) });

/** `POST /api/approvals/:id/approve|reject`: what was decided. */
export const approvalDecidedAnswerSchema = z.looseObject({
  approval: pendingApprovalSchema,
  decision: z.enum(['approve', 'reject']),
});

/**
 * The approval an operator named in a command (`/approve ID [note]`), or the older
 * `RUN STEP [note]` of a workflow step: a run id holds no `:` and a tool call's id starts with
 * `ap-`, so two words that are neither are a run and its step. The remaining words are the note.
 *
 * @example
 * approvalFromWords(['run-9', 'review', 'looks', 'good']) // { id: 'run-9:review', note: 'looks good' }
 */
export function approvalFromWords(words: readonly string[]): { id: string; note: string } | undefined {
  const [first, second, ...rest] = words;
  if (!first) return undefined;
  if (first.includes(':') || first.startsWith('ap-') || !second)
    return { id: first, note: [second, ...rest].filter(Boolean).join(' ') };
  return { id: workflowStepApprovalId(first, second), note: rest.join(' ') };
}
