import { type Database, transaction } from '@openlegion/infra/sqlite';
import {
  type WorkflowDefinition,
  type WorkflowStepApproval,
  workflowStepApprovalId,
} from '@openlegion/protocol';
import type { RunRecord, StepRecord } from './workflow-records.js';

interface RunRow {
  id: string;
  workflow: string;
  version: string;
  definition: string;
  inputs: string;
  trigger: string;
  trigger_key: string | null;
  trace_id: string;
  state: RunRecord['state'];
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  deadline_at: number | null;
  finished_at: number | null;
}

interface StepRow {
  run_id: string;
  step_id: string;
  item: number;
  item_value: string | null;
  state: StepRecord['state'];
  agent: string | null;
  attempt: number;
  lane_key: string | null;
  lane_item_id: number | null;
  approved: number;
  note: string | null;
  output: string | null;
  error_code: string | null;
  error_message: string | null;
  not_before: number | null;
  deadline_at: number | null;
  waiting_since: number | null;
  started_at: number | null;
  finished_at: number | null;
  cost_usd: number | null;
}

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));
const parsed = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

const toRun = (row: RunRow): RunRecord => ({
  id: row.id,
  workflow: row.workflow,
  version: row.version,
  definition: JSON.parse(row.definition) as WorkflowDefinition,
  inputs: JSON.parse(row.inputs) as Record<string, unknown>,
  trigger: JSON.parse(row.trigger) as RunRecord['trigger'],
  triggerKey: row.trigger_key,
  traceId: row.trace_id,
  state: row.state,
  errorCode: row.error_code,
  errorMessage: row.error_message,
  createdAt: row.created_at,
  deadlineAt: row.deadline_at,
  finishedAt: row.finished_at,
});

const toStep = (row: StepRow): StepRecord => ({
  runId: row.run_id,
  stepId: row.step_id,
  item: row.item,
  itemValue: parsed(row.item_value),
  state: row.state,
  agent: row.agent,
  attempt: row.attempt,
  laneKey: row.lane_key,
  laneItemId: row.lane_item_id,
  approved: row.approved === 1,
  note: row.note,
  output: parsed(row.output),
  errorCode: row.error_code,
  errorMessage: row.error_message,
  notBefore: row.not_before,
  deadlineAt: row.deadline_at,
  waitingSince: row.waiting_since,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  costUsd: row.cost_usd,
});

const STEP_COLUMNS =
  'item_value, state, agent, attempt, lane_key, lane_item_id, approved, note, output, error_code, error_message, not_before, deadline_at, waiting_since, started_at, finished_at, cost_usd';

/**
 * Workflow runs and their steps in mesh.db. Every write is synchronous and lands before the
 * engine acts on it, so a host killed at any point resumes from what is written here.
 */
export class WorkflowRepository {
  readonly #db: Database;
  readonly #saveStep;
  readonly #insertStep;
  readonly #saveRun;

  /** Told of every step row written (new, or changed), after it is written. */
  readonly #onStepChanged: (step: StepRecord) => void;

  constructor(db: Database, onStepChanged: (step: StepRecord) => void = () => {}) {
    this.#db = db;
    this.#onStepChanged = onStepChanged;
    // cost_usd is the LLM-cost feature's to write (addCost): the engine's saves leave it alone.
    const assignments = STEP_COLUMNS.split(', ')
      .filter((column) => column !== 'cost_usd')
      .map((column) => `${column} = @${column}`)
      .join(', ');
    this.#saveStep = db.prepare<StepRow>(
      `UPDATE workflow_steps SET ${assignments} WHERE run_id = @run_id AND step_id = @step_id AND item = @item`,
    );
    this.#insertStep = db.prepare<StepRow>(
      `INSERT INTO workflow_steps (run_id, step_id, item, ${STEP_COLUMNS}) VALUES (@run_id, @step_id, @item, ${STEP_COLUMNS.split(
        ', ',
      )
        .map((column) => `@${column}`)
        .join(', ')})`,
    );
    this.#saveRun = db.prepare<[string, string | null, string | null, number | null, string]>(
      'UPDATE workflow_runs SET state = ?, error_code = ?, error_message = ?, finished_at = ? WHERE id = ?',
    );
  }

  /** A new run and its first rows, in one transaction. */
  insertRun(run: RunRecord, steps: readonly StepRecord[]): void {
    transaction(this.#db, () => {
      this.#db
        .prepare(
          `INSERT INTO workflow_runs (id, workflow, version, definition, inputs, trigger, trigger_key, trace_id,
             state, error_code, error_message, created_at, deadline_at, finished_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          run.id,
          run.workflow,
          run.version,
          JSON.stringify(run.definition),
          JSON.stringify(run.inputs),
          JSON.stringify(run.trigger),
          run.triggerKey,
          run.traceId,
          run.state,
          run.errorCode,
          run.errorMessage,
          run.createdAt,
          run.deadlineAt,
          run.finishedAt,
        );
      for (const step of steps) this.#insertStep.run(toStepRow(step));
    });
    for (const step of steps) this.#onStepChanged(step);
  }

  /** New rows of a run (the elements of a `for_each` step), in one transaction with `parent`. */
  insertSteps(steps: readonly StepRecord[], parent: StepRecord): void {
    transaction(this.#db, () => {
      for (const step of steps) this.#insertStep.run(toStepRow(step));
      this.#saveStep.run(toStepRow(parent));
    });
    for (const step of [...steps, parent]) this.#onStepChanged(step);
  }

  saveStep(step: StepRecord): void {
    this.#saveStep.run(toStepRow(step));
    this.#onStepChanged(step);
  }

  /** Several rows at once (a run that ends cancels what is left of it). */
  saveAll(run: RunRecord, steps: readonly StepRecord[]): void {
    transaction(this.#db, () => {
      this.saveRun(run);
      for (const step of steps) this.saveStep(step);
    });
  }

  /**
   * Add what one lane item of a step cost (for the LLM-cost feature): `sourceRef` is the item's
   * `run/step/element`. Returns false when no such step exists.
   */
  addCost(sourceRef: string, usd: number): boolean {
    const [runId, stepId, item] = sourceRef.split('/');
    return (
      this.#db
        .prepare(
          'UPDATE workflow_steps SET cost_usd = COALESCE(cost_usd, 0) + ? WHERE run_id = ? AND step_id = ? AND item = ?',
        )
        .run(usd, runId ?? '', stepId ?? '', Number(item)).changes > 0
    );
  }

  saveRun(run: RunRecord): void {
    this.#saveRun.run(run.state, run.errorCode, run.errorMessage, run.finishedAt, run.id);
  }

  run(id: string): RunRecord | undefined {
    const row = this.#db.prepare<[string], RunRow>('SELECT * FROM workflow_runs WHERE id = ?').get(id);
    return row && toRun(row);
  }

  runByTriggerKey(key: string): RunRecord | undefined {
    const row = this.#db
      .prepare<[string], RunRow>('SELECT * FROM workflow_runs WHERE trigger_key = ?')
      .get(key);
    return row && toRun(row);
  }

  /** Runs that have not ended: the ones to resume after a restart. */
  activeRuns(): RunRecord[] {
    return this.#db
      .prepare<[], RunRow>("SELECT * FROM workflow_runs WHERE state = 'running' ORDER BY created_at")
      .all()
      .map(toRun);
  }

  /** The newest runs first. */
  recentRuns(limit: number, workflow?: string): RunRecord[] {
    const rows = workflow
      ? this.#db
          .prepare<[string, number], RunRow>(
            'SELECT * FROM workflow_runs WHERE workflow = ? ORDER BY created_at DESC, rowid DESC LIMIT ?',
          )
          .all(workflow, limit)
      : this.#db
          .prepare<[number], RunRow>(
            'SELECT * FROM workflow_runs ORDER BY created_at DESC, rowid DESC LIMIT ?',
          )
          .all(limit);
    return rows.map(toRun);
  }

  /** Steps of running runs that wait for the operator, the longest waiting first. */
  pendingApprovals(): WorkflowStepApproval[] {
    return this.#db
      .prepare<[], Omit<WorkflowStepApproval, 'kind' | 'id'>>(
        `SELECT s.run_id AS run, r.workflow, s.step_id AS step, COALESCE(s.started_at, r.created_at) AS waiting_since
           FROM workflow_steps s JOIN workflow_runs r ON r.id = s.run_id
          WHERE s.state = 'waiting_approval' AND r.state = 'running'
          ORDER BY waiting_since, s.rowid`,
      )
      .all()
      .map((row) => ({ kind: 'workflow_step', id: workflowStepApprovalId(row.run, row.step), ...row }));
  }

  /** A run's rows: steps in no particular order, elements after their step. */
  steps(runId: string): StepRecord[] {
    return this.#db
      .prepare<[string], StepRow>('SELECT * FROM workflow_steps WHERE run_id = ? ORDER BY step_id, item')
      .all(runId)
      .map(toStep);
  }
}

function toStepRow(step: StepRecord): StepRow {
  return {
    run_id: step.runId,
    step_id: step.stepId,
    item: step.item,
    item_value: json(step.itemValue),
    state: step.state,
    agent: step.agent,
    attempt: step.attempt,
    lane_key: step.laneKey,
    lane_item_id: step.laneItemId,
    approved: step.approved ? 1 : 0,
    note: step.note,
    output: json(step.output),
    error_code: step.errorCode,
    error_message: step.errorMessage,
    not_before: step.notBefore,
    deadline_at: step.deadlineAt,
    waiting_since: step.waitingSince,
    started_at: step.startedAt,
    finished_at: step.finishedAt,
    cost_usd: step.costUsd,
  };
}
