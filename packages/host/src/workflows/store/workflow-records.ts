import type { WorkflowDefinition, WorkflowRunState, WorkflowStepState } from '@openlegion/protocol';

/** How a run started, and what the event that started it carried (`${trigger.payload}`). */
export interface RunTrigger {
  kind: 'manual' | 'topic' | 'cron';
  topic?: string;
  payload?: unknown;
}

/** One run of a workflow, as persisted. It keeps the definition it started with. */
export interface RunRecord {
  id: string;
  workflow: string;
  /** sha256 of the file text the run started with. */
  version: string;
  definition: WorkflowDefinition;
  inputs: Record<string, unknown>;
  trigger: RunTrigger;
  /** Unique per trigger firing (a cron slot, an event): firing twice starts one run. */
  triggerKey: string | null;
  traceId: string;
  state: WorkflowRunState;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: number;
  deadlineAt: number | null;
  finishedAt: number | null;
}

/** The step itself; `for_each` elements are rows 0, 1, ... beside it. */
export const STEP_ROW = -1;

/** One step of a run, or one element of a `for_each` step, as persisted. */
export interface StepRecord {
  runId: string;
  stepId: string;
  /** STEP_ROW for the step, else the element's index. */
  item: number;
  /** The element of a `for_each` list this row works on. */
  itemValue: unknown;
  state: WorkflowStepState;
  /** The agent of the current try (the fallback agent once it took over). */
  agent: string | null;
  /** Tries handed to a lane so far. */
  attempt: number;
  /** The idempotency key of the current try's lane item. */
  laneKey: string | null;
  laneItemId: number | null;
  /** The operator approved the step (an approval gate's condition). */
  approved: boolean;
  /** The operator's approval or rejection note. */
  note: string | null;
  /** Text, or the parsed JSON of a `json` output; a `for_each` step's is the list of its elements'. */
  output: unknown;
  errorCode: string | null;
  errorMessage: string | null;
  /** A retry or the next look at a stopped agent is not before this. */
  notBefore: number | null;
  /** The current try's timeout. */
  deadlineAt: number | null;
  /** Since when the step waits for its agent to take work. */
  waitingSince: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  /** Filled by the LLM-cost feature; null until then. */
  costUsd: number | null;
}

/** The key of a row within its run. */
export const rowKey = (stepId: string, item: number) => `${stepId}#${item}`;
