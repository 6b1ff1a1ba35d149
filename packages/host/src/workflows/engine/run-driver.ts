import { isOpenLegionError, OpenLegionError, workflowStepApprovalId } from '@openlegion/protocol';
import { ExpressionError, evaluateExpression, isTruthy } from '../expression/index.js';
import type { StepRecord } from '../store/workflow-records.js';
import type { EngineDeps, RunTimers } from './engine-deps.js';
import { listOf } from './fan-out-list.js';
import { endRun } from './run-ending.js';
import { type CompiledStep, isFinal, itemRows, type RunState, runValues, stepRow } from './run-state.js';
import { StepAttempts } from './step-attempts.js';
import { newStepRow } from './step-rows.js';

/**
 * Moves a run forward: starts every step whose dependencies have ended (after its `when`, its
 * approval, its fan-out), keeps `for_each` elements within their concurrency, and ends the run
 * when every step has. Each transition is written to mesh.db before it is acted on.
 */
export class RunDriver {
  readonly #deps: EngineDeps;
  readonly attempts: StepAttempts;

  constructor(deps: EngineDeps, timers: RunTimers) {
    this.#deps = deps;
    this.attempts = new StepAttempts(deps, timers);
  }

  async advance(state: RunState): Promise<void> {
    for (let progressed = true; progressed && state.run.state === 'running'; ) {
      progressed = false;
      for (const compiled of state.steps.values()) {
        if (state.run.state !== 'running') return;
        const row = stepRow(state, compiled.step.id);
        if (row.state === 'pending') progressed = (await this.#consider(state, compiled, row)) || progressed;
        else if (row.state === 'running' && compiled.forEach)
          progressed = (await this.#fanOut(state, compiled, row)) || progressed;
      }
    }
    if (state.run.state !== 'running') return;
    const steps = [...state.steps.keys()].map((id) => stepRow(state, id));
    if (steps.every((row) => isFinal(row.state)))
      await endRun(this.#deps, this.attempts.timers, state, { state: 'succeeded' });
  }

  /** A pending step whose dependencies have all ended: skip it, hold it for approval, fan it out or run it. */
  async #consider(state: RunState, compiled: CompiledStep, row: StepRecord): Promise<boolean> {
    const { step } = compiled;
    if (!step.depends_on.every((id) => isFinal(stepRow(state, id).state))) return false;
    const now = this.#deps.clock.now();
    if (compiled.when && !row.approved) {
      let holds: boolean;
      try {
        holds = isTruthy(evaluateExpression(compiled.when, runValues(state, row)));
      } catch (error) {
        await this.attempts.fail(state, row, expressionFailure(step.id, 'when', error), { permanent: true });
        return true;
      }
      if (!holds) {
        row.state = 'skipped';
        row.startedAt = now;
        row.finishedAt = now;
        row.note = `when: ${step.when}`;
        this.#deps.repo.saveStep(row);
        return true;
      }
    }
    if (step.requires_approval && !row.approved) {
      row.state = 'waiting_approval';
      row.startedAt = now;
      this.#deps.repo.saveStep(row);
      await this.#tellApprovalWaits(state, step.id, now);
      return true;
    }
    if (step.agent === undefined) {
      // An approval gate: its output is the operator's note.
      this.attempts.save(state, row, row.note ?? 'approved');
      return true;
    }
    if (compiled.forEach) return this.#expand(state, compiled, row);
    await this.attempts.dispatch(state, row, { newTry: true });
    return true;
  }

  /** Write one row per element of the step's list; they run from `#fanOut`. */
  async #expand(state: RunState, compiled: CompiledStep, row: StepRecord): Promise<boolean> {
    let elements: unknown[];
    try {
      // `compiled.forEach` is set: only fan-out steps come here.
      elements = listOf(
        evaluateExpression(compiled.forEach as NonNullable<typeof compiled.forEach>, runValues(state, row)),
      );
    } catch (error) {
      await this.attempts.fail(state, row, expressionFailure(row.stepId, 'for_each', error), {
        permanent: true,
      });
      return true;
    }
    const items = elements.map((value, index) =>
      newStepRow(state.run.id, row.stepId, index, value, compiled.step.agent ?? null),
    );
    row.state = 'running';
    row.startedAt = this.#deps.clock.now();
    this.#deps.repo.insertSteps(items, row);
    for (const item of items) state.rows.set(`${item.stepId}#${item.item}`, item);
    return true;
  }

  /** Start elements while fewer than `concurrency` are under way; end the step once all have. */
  async #fanOut(state: RunState, compiled: CompiledStep, row: StepRecord): Promise<boolean> {
    const items = itemRows(state, row.stepId);
    if (items.every((item) => isFinal(item.state))) {
      const output = items.map((item) => (item.state === 'done' ? item.output : null));
      this.attempts.save(state, row, output);
      return true;
    }
    const limit = compiled.step.concurrency ?? items.length;
    let active = items.filter((item) => !isFinal(item.state) && item.state !== 'pending').length;
    let progressed = false;
    for (const item of items) {
      if (active >= limit || state.run.state !== 'running') break;
      if (item.state !== 'pending') continue;
      active++;
      progressed = true;
      await this.attempts.dispatch(state, item, { newTry: true });
    }
    return progressed;
  }

  async #tellApprovalWaits(state: RunState, stepId: string, since: number): Promise<void> {
    if (!this.#deps.notify) return;
    const { run } = state;
    try {
      await this.#deps.notify({
        text: `workflow ${run.workflow}, run ${run.id}: step ${stepId} waits for approval (openlegion approve ${workflowStepApprovalId(run.id, stepId)})`,
        approval: {
          kind: 'workflow_step',
          id: workflowStepApprovalId(run.id, stepId),
          run: run.id,
          workflow: run.workflow,
          step: stepId,
          waiting_since: since,
        },
      });
    } catch (error) {
      this.#deps.logger.error({ err: error, run: run.id }, 'notifying an approval failed');
    }
  }
}

function expressionFailure(stepId: string, field: string, error: unknown): OpenLegionError {
  if (!(error instanceof ExpressionError) && !isOpenLegionError(error)) throw error;
  return new OpenLegionError('WORKFLOW_EXPRESSION_FAILED', `step ${stepId} ${field}: ${error.message}`, {
    cause: error,
  });
}
