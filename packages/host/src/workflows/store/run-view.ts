import type { WorkflowRunSummary, WorkflowRunView, WorkflowStepView } from '@openlegion/protocol';
import { asText } from '../expression/index.js';
import { type RunRecord, STEP_ROW, type StepRecord } from './workflow-records.js';

const PREVIEW_CHARS = 120;

/** A run as `GET /api/workflows/runs` lists it. */
export function runSummary(run: RunRecord): WorkflowRunSummary {
  return {
    id: run.id,
    workflow: run.workflow,
    state: run.state,
    trigger: run.trigger.kind === 'topic' ? `topic ${run.trigger.topic ?? ''}` : run.trigger.kind,
    created_at: run.createdAt,
    finished_at: run.finishedAt,
    error: run.errorCode ? { code: run.errorCode, message: run.errorMessage ?? '' } : null,
  };
}

/** A run with each step's state, timing, cost and output preview, steps in file order. */
export function runView(run: RunRecord, rows: readonly StepRecord[], now: number): WorkflowRunView {
  const steps = run.definition.steps.map((step): WorkflowStepView => {
    const own = rows.find((row) => row.stepId === step.id && row.item === STEP_ROW);
    const items = rows.filter((row) => row.stepId === step.id && row.item !== STEP_ROW);
    const started = own?.startedAt ?? null;
    const finished = own?.finishedAt ?? null;
    const costs = [own, ...items].flatMap((row) => (row?.costUsd == null ? [] : [row.costUsd]));
    const attempts = step.for_each ? items.reduce((sum, row) => sum + row.attempt, 0) : (own?.attempt ?? 0);
    return {
      id: step.id,
      agent: own?.agent ?? step.agent ?? null,
      state: own?.state ?? 'pending',
      depends_on: [...step.depends_on],
      requires_approval: step.requires_approval,
      attempts,
      started_at: started,
      finished_at: finished,
      duration_ms: started === null ? null : (finished ?? now) - started,
      cost_usd: costs.length === 0 ? null : costs.reduce((sum, cost) => sum + cost, 0),
      output_preview: own?.state === 'done' ? preview(own.output) : (own?.note ?? null),
      error: own?.errorCode ? { code: own.errorCode, message: own.errorMessage ?? '' } : null,
      items: step.for_each
        ? {
            total: items.length,
            done: items.filter((row) => row.state === 'done').length,
            running: items.filter((row) => row.state === 'running').length,
            failed: items.filter((row) => row.state === 'failed').length,
          }
        : null,
    };
  });
  return { ...runSummary(run), inputs: run.inputs, steps };
}

function preview(output: unknown): string {
  const text = asText(output).replace(/\s+/g, ' ').trim();
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
}
