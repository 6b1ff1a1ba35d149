import { z } from 'zod';
import type { PendingApproval } from './approval.js';

/**
 * Where one step (or one `for_each` element) of a run stands.
 * `waiting_agent`: its agent is not taking work; the step waits for it, then fails under its policy.
 * `retry_wait`: it failed and waits out its backoff before the next try.
 */
export const WORKFLOW_STEP_STATES = [
  'pending',
  'waiting_approval',
  'waiting_agent',
  'running',
  'retry_wait',
  'done',
  'failed',
  'skipped',
  'cancelled',
  'rejected',
] as const;
export type WorkflowStepState = (typeof WORKFLOW_STEP_STATES)[number];

/** States a step never leaves. */
export const FINAL_STEP_STATES: readonly WorkflowStepState[] = [
  'done',
  'failed',
  'skipped',
  'cancelled',
  'rejected',
];

export const WORKFLOW_RUN_STATES = ['running', 'succeeded', 'failed', 'cancelled', 'rejected'] as const;
export type WorkflowRunState = (typeof WORKFLOW_RUN_STATES)[number];

const errorView = z.object({ code: z.string(), message: z.string() });

/** One step of a run as the operator API shows it (`GET /api/workflows/runs/:run`). */
export const workflowStepViewSchema = z.object({
  id: z.string(),
  agent: z.string().nullable(),
  state: z.enum(WORKFLOW_STEP_STATES),
  depends_on: z.array(z.string()),
  requires_approval: z.boolean(),
  /** Tries so far (1 for a step that ran once). */
  attempts: z.number(),
  started_at: z.number().nullable(),
  finished_at: z.number().nullable(),
  duration_ms: z.number().nullable(),
  /** Filled by the LLM-cost feature; null until it does. */
  cost_usd: z.number().nullable(),
  /** The first part of the output, for a glance. */
  output_preview: z.string().nullable(),
  error: errorView.nullable(),
  /** For `for_each` steps: how its elements stand. */
  items: z
    .object({ total: z.number(), done: z.number(), running: z.number(), failed: z.number() })
    .nullable(),
});
export type WorkflowStepView = z.infer<typeof workflowStepViewSchema>;

/** A run without its steps (`GET /api/workflows/runs`). */
export const workflowRunSummarySchema = z.object({
  id: z.string(),
  workflow: z.string(),
  state: z.enum(WORKFLOW_RUN_STATES),
  trigger: z.string(),
  created_at: z.number(),
  finished_at: z.number().nullable(),
  error: errorView.nullable(),
});
export type WorkflowRunSummary = z.infer<typeof workflowRunSummarySchema>;

/** A run with its steps in file order. */
export const workflowRunViewSchema = workflowRunSummarySchema.extend({
  inputs: z.record(z.string(), z.unknown()),
  steps: z.array(workflowStepViewSchema),
});
export type WorkflowRunView = z.infer<typeof workflowRunViewSchema>;

/** A workflow file as `GET /api/workflows` lists it; `problems` are its validation errors. */
export const workflowListingSchema = z.object({
  name: z.string(),
  file: z.string(),
  description: z.string(),
  trigger: z.string(),
  steps: z.number(),
  inputs: z.array(z.object({ name: z.string(), type: z.string(), required: z.boolean() })),
  problems: z.array(z.string()),
});
export type WorkflowListing = z.infer<typeof workflowListingSchema>;

/** `POST /api/workflows/:name/runs`. */
export const workflowRunRequestSchema = z
  .object({ inputs: z.record(z.string(), z.unknown()).default({}) })
  .strict();

/** `POST /api/workflows/runs/:run/steps/:step/approve|reject`. */
export const workflowDecisionRequestSchema = z.object({ note: z.string().max(10_000).optional() }).strict();

/**
 * Something the operator should see wherever they are (REPL, Telegram): something that waits for
 * approval (a workflow step, an agent's tool call), or a workflow's `on_complete.notify` text.
 */
export interface OperatorNotice {
  text: string;
  approval?: PendingApproval;
}
