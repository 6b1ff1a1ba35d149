import {
  isErrorCode,
  isOpenLegionError,
  OpenLegionError,
  stepFallback,
  stepRetries,
} from '@openlegion/protocol';
import type { LaneItem } from '../../lanes/index.js';
import { ExpressionError, renderTemplate } from '../expression/index.js';
import { rowKey, STEP_ROW, type StepRecord } from '../store/workflow-records.js';
import {
  AGENT_POLL_MS,
  DEFAULT_AGENT_WAIT_MS,
  type EngineDeps,
  MAX_BACKOFF_MS,
  type RunTimers,
} from './engine-deps.js';
import { endRun } from './run-ending.js';
import { compiledStep, type RunState, runValues, stepRow } from './run-state.js';
import { stepOutput } from './step-output.js';

/** Lane errors that mean "the agent is not taking work now", not "the work failed". */
const AGENT_UNAVAILABLE = new Set(['AGENT_NOT_READY', 'MESH_QUEUE_FULL']);

/** The lane item key of one try: a try handed over twice (a restart in between) runs once. */
export const tryKey = (row: StepRecord) => `workflow:${row.runId}:${row.stepId}:${row.item}:${row.attempt}`;
/** Where a lane item's result goes back to: `run/step/element`. */
export const sourceRef = (row: StepRecord) => `${row.runId}/${row.stepId}/${row.item}`;

/**
 * The tries of one step (or element): hand it to its agent's lane, take its result, and on a
 * failure retry with backoff, move to the fallback agent, skip it or end the run, as the step says.
 */
export class StepAttempts {
  readonly #deps: EngineDeps;
  readonly timers: RunTimers;

  constructor(deps: EngineDeps, timers: RunTimers) {
    this.#deps = deps;
    this.timers = timers;
  }

  /** Hand the row to its agent: a new try, or the same one again (its agent was away, a restart). */
  async dispatch(state: RunState, row: StepRecord, { newTry }: { newTry: boolean }): Promise<void> {
    const { step, task } = compiledStep(state, row.stepId);
    const now = this.#deps.clock.now();
    if (newTry) {
      row.attempt++;
      row.deadlineAt = step.timeout === undefined ? null : now + step.timeout;
    }
    let message: string;
    try {
      message = renderTemplate(task ?? [], runValues(state, row), (key) => this.#deps.blackboard.get(key));
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      const failure = new OpenLegionError(
        'WORKFLOW_TEMPLATE_FAILED',
        `step ${row.stepId} task: ${error.message}`,
      );
      return this.fail(state, row, failure, { permanent: true });
    }
    const key = tryKey(row);
    row.state = 'running';
    row.laneKey = key;
    row.laneItemId = null;
    row.startedAt ??= now;
    row.notBefore = null;
    // An earlier try's error stays visible while the step waits to retry, not once it runs again.
    row.errorCode = null;
    row.errorMessage = null;
    this.#deps.repo.saveStep(row);
    this.#armDeadline(state, row);
    const agent = row.agent ?? step.agent ?? '';
    let item: LaneItem;
    try {
      ({ item } = await this.#deps.lanes.enqueue({
        agent,
        message,
        kind: this.#deps.stepKind ?? 'chat',
        source: 'workflow',
        sourceRef: sourceRef(row),
        idempotencyKey: key,
        traceId: state.run.traceId,
        conversationId: `workflow:${row.runId}:${row.stepId}:${row.item}`,
      }));
    } catch (error) {
      const failure = asError(error);
      if (AGENT_UNAVAILABLE.has(failure.code)) return this.#waitForAgent(state, row, failure);
      return this.fail(state, row, failure);
    }
    // Read afresh: the run may have ended while the item was being queued.
    const { state: current, laneKey } = row as StepRecord;
    if (laneKey !== key || current !== 'running') {
      if (current === 'cancelled') this.#deps.lanes.cancel(item.id);
      return;
    }
    // Kept in memory until the next write: after a restart the item is found again by its key.
    row.laneItemId = item.id;
    row.waitingSince = null;
    // After a restart the key may name an item that has already ended.
    if (item.state !== 'queued' && item.state !== 'running') await this.result(state, row, item);
  }

  /** A lane item of this row ended. Results of an earlier try (or of a cancelled run) are ignored. */
  async result(state: RunState, row: StepRecord, item: LaneItem): Promise<void> {
    if (row.laneKey !== item.idempotencyKey || row.state !== 'running') return;
    this.timers.unschedule(state, `${rowKey(row.stepId, row.item)}:deadline`);
    const { step } = compiledStep(state, row.stepId);
    if (item.state !== 'done') {
      const code = item.errorCode && isErrorCode(item.errorCode) ? item.errorCode : 'AGENT_NOT_READY';
      const message = item.errorMessage ?? `the lane item ended ${item.state}`;
      return this.fail(state, row, new OpenLegionError(code, `${row.agent}: ${message}`));
    }
    let output: unknown;
    try {
      output = stepOutput(step, item.resultText ?? '');
    } catch (error) {
      return this.fail(state, row, asError(error));
    }
    this.save(state, row, output);
  }

  /**
   * The row is done with `output`. A step's output goes to its blackboard key first, written by
   * `workflow:<name>`: after a host kill in between, the repeat writes the same value.
   */
  save(state: RunState, row: StepRecord, output: unknown): void {
    const { step } = compiledStep(state, row.stepId);
    if (row.item === STEP_ROW && step.save_to)
      this.#deps.blackboard.put(step.save_to, output, `workflow:${state.run.workflow}`);
    row.state = 'done';
    row.output = output;
    row.finishedAt = this.#deps.clock.now();
    row.deadlineAt = null;
    row.errorCode = null;
    row.errorMessage = null;
    this.#deps.repo.saveStep(row);
  }

  /** A try failed: retry after the backoff, move to the fallback agent, skip, or end the run. */
  async fail(
    state: RunState,
    row: StepRecord,
    error: OpenLegionError,
    options = { permanent: false },
  ): Promise<void> {
    const { step } = compiledStep(state, row.stepId);
    const now = this.#deps.clock.now();
    const key = rowKey(row.stepId, row.item);
    this.timers.unschedule(state, `${key}:deadline`);
    row.errorCode = error.code;
    row.errorMessage = error.message;
    row.waitingSince = null;
    const fallback = stepFallback(step);
    const onFirstAgent = (row.agent ?? step.agent) === step.agent;
    this.#deps.logger.warn(
      { run: row.runId, step: key, attempt: row.attempt, code: error.code },
      'workflow step try failed',
    );
    if (!options.permanent && onFirstAgent && row.attempt < 1 + stepRetries(step)) {
      row.state = 'retry_wait';
      row.notBefore = now + Math.min(step.backoff * 2 ** Math.max(0, row.attempt - 1), MAX_BACKOFF_MS);
      this.#deps.repo.saveStep(row);
      this.timers.schedule(state, `${key}:retry`, row.notBefore, async () => {
        if (row.state === 'retry_wait') await this.dispatch(state, row, { newTry: true });
      });
      return;
    }
    if (!options.permanent && fallback !== undefined && row.agent !== fallback) {
      row.agent = fallback;
      return this.dispatch(state, row, { newTry: true });
    }
    row.finishedAt = now;
    row.state = step.on_failure === 'skip' ? 'skipped' : 'failed';
    this.#deps.repo.saveStep(row);
    if (row.state === 'skipped') return;
    const message = `step ${row.stepId}${row.item === STEP_ROW ? '' : `[${row.item}]`} failed: ${error.message}`;
    if (row.item !== STEP_ROW) {
      // One element failed for good: so did its step.
      const parent = stepRow(state, row.stepId);
      parent.state = 'failed';
      parent.finishedAt = now;
      parent.errorCode = error.code;
      parent.errorMessage = message;
      this.#deps.repo.saveStep(parent);
    }
    await endRun(this.#deps, this.timers, state, { state: 'failed', code: error.code, message });
  }

  /** The agent does not take work now (stopped, or its lane is full): look again, until the wait runs out. */
  async #waitForAgent(state: RunState, row: StepRecord, error: OpenLegionError): Promise<void> {
    const now = this.#deps.clock.now();
    const { step } = compiledStep(state, row.stepId);
    row.waitingSince ??= now;
    const limit = step.timeout ?? this.#deps.agentWaitMs ?? DEFAULT_AGENT_WAIT_MS;
    if (now - row.waitingSince >= limit) {
      const waited = new OpenLegionError(
        error.code,
        `${error.message}; the step waited ${Math.round(limit / 1000)}s for it`,
      );
      return this.fail(state, row, waited);
    }
    row.state = 'waiting_agent';
    row.laneKey = null;
    row.errorCode = error.code;
    row.errorMessage = error.message;
    row.notBefore = Math.min(now + AGENT_POLL_MS, row.waitingSince + limit);
    this.#deps.repo.saveStep(row);
    this.timers.schedule(state, `${rowKey(row.stepId, row.item)}:retry`, row.notBefore, async () => {
      if (row.state === 'waiting_agent') await this.dispatch(state, row, { newTry: false });
    });
  }

  /** Arm the try's timeout: the lane item is cancelled and the try fails (it may be retried). */
  #armDeadline(state: RunState, row: StepRecord): void {
    if (row.deadlineAt === null) return;
    const key = row.laneKey;
    this.timers.schedule(state, `${rowKey(row.stepId, row.item)}:deadline`, row.deadlineAt, async () => {
      if (row.laneKey !== key || row.state !== 'running') return;
      if (row.laneItemId !== null) this.#deps.lanes.cancel(row.laneItemId);
      const { step } = compiledStep(state, row.stepId);
      const seconds = Math.round((step.timeout ?? 0) / 1000);
      await this.fail(
        state,
        row,
        new OpenLegionError('WORKFLOW_STEP_TIMEOUT', `step ${row.stepId} did not finish within ${seconds}s`),
      );
    });
  }

  /** Re-arm a running try's timeout after a restart. */
  rearmDeadline(state: RunState, row: StepRecord): void {
    this.#armDeadline(state, row);
  }
}

function asError(error: unknown): OpenLegionError {
  if (isOpenLegionError(error)) return error;
  return new OpenLegionError('INTERNAL', `handing a step to its lane failed: ${String(error)}`, {
    cause: error,
  });
}
