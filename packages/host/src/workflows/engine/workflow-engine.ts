import { randomBytes, randomUUID } from 'node:crypto';
import type { Timer } from '@openlegion/infra/clock';
import { isOpenLegionError, OpenLegionError } from '@openlegion/protocol';
import type { LaneItem } from '../../lanes/index.js';
import type { LoadedWorkflow } from '../definition/workflow-file.js';
import {
  type RunRecord,
  type RunTrigger,
  rowKey,
  STEP_ROW,
  type StepRecord,
} from '../store/workflow-records.js';
import type { EngineDeps, RunTimers } from './engine-deps.js';
import { RunDriver } from './run-driver.js';
import { endRun } from './run-ending.js';
import { resolveInputs } from './run-inputs.js';
import { type RunState, runState, stepRow } from './run-state.js';
import { newStepRow } from './step-rows.js';

interface ActiveRun {
  state: RunState;
  /** The run's work, one piece after another: results, timers and operator calls never interleave. */
  chain: Promise<unknown>;
  timers: Map<string, Timer>;
}

/** How a new run is asked for. */
export interface RunRequest {
  workflow: LoadedWorkflow;
  inputs?: Readonly<Record<string, unknown>>;
  trigger?: RunTrigger;
  /** Names one firing of a trigger: a second run with the same key is not started (the first is returned). */
  triggerKey?: string;
}

/**
 * Drives workflow runs: starts them, takes their steps' lane results, retries, timeouts,
 * approvals and cancels, and after a restart picks every unfinished run up from mesh.db.
 */
export class WorkflowEngine {
  readonly #deps: EngineDeps;
  readonly #runs = new Map<string, ActiveRun>();
  readonly #driver: RunDriver;
  #stopped = false;

  constructor(deps: EngineDeps) {
    this.#deps = deps;
    const timers: RunTimers = {
      schedule: (state, name, at, action) => this.#schedule(state, name, at, action),
      unschedule: (state, name) => this.#unschedule(state, name),
    };
    this.#driver = new RunDriver(deps, timers);
  }

  /** Pick up every run that had not ended when the host stopped. */
  async start(): Promise<void> {
    const resumed = this.#deps.repo.activeRuns().map((run) => {
      const active = this.#track(runState(run, this.#deps.repo.steps(run.id)));
      return this.#exclusive(active, () => this.#resume(active.state));
    });
    await Promise.all(resumed);
    if (resumed.length > 0) this.#deps.logger.info({ runs: resumed.length }, 'workflow runs resumed');
  }

  /** Stop driving runs: timers are dropped; what is in flight stays in mesh.db for the next start. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const active of this.#runs.values()) for (const timer of active.timers.values()) timer.cancel();
    await Promise.allSettled([...this.#runs.values()].map((active) => active.chain));
    this.#runs.clear();
  }

  /** Start a run; resolves once its first steps are handed to their lanes. */
  async startRun(request: RunRequest): Promise<RunRecord> {
    if (request.triggerKey) {
      const existing = this.#deps.repo.runByTriggerKey(request.triggerKey);
      if (existing) return existing;
    }
    const { definition, version } = request.workflow;
    const inputs = resolveInputs(definition, request.inputs ?? {});
    const now = this.#deps.clock.now();
    const run: RunRecord = {
      id: `run-${now.toString(36)}-${randomBytes(3).toString('hex')}`,
      workflow: definition.name,
      version,
      definition,
      inputs,
      trigger: request.trigger ?? { kind: 'manual' },
      triggerKey: request.triggerKey ?? null,
      traceId: randomUUID(),
      state: 'running',
      errorCode: null,
      errorMessage: null,
      createdAt: now,
      deadlineAt: definition.timeout === undefined ? null : now + definition.timeout,
      finishedAt: null,
    };
    const rows = definition.steps.map((step) =>
      newStepRow(run.id, step.id, STEP_ROW, null, step.agent ?? null),
    );
    this.#deps.repo.insertRun(run, rows);
    this.#deps.logger.info(
      { run: run.id, workflow: run.workflow, trigger: run.trigger.kind },
      'workflow run started',
    );
    const active = this.#track(runState(run, rows));
    await this.#exclusive(active, async () => {
      this.#armRunDeadline(active.state);
      await this.#driver.advance(active.state);
    });
    return run;
  }

  /** Cancel a run: queued steps never run, running ones are cancelled in their lanes. */
  cancel(runId: string): Promise<void> {
    return this.#withRun(runId, (state) =>
      endRun(this.#deps, this.#driver.attempts.timers, state, {
        state: 'cancelled',
        message: 'cancelled by the operator',
      }),
    );
  }

  /** Let a step that waits for approval run (an approval gate ends with `note` as its output). */
  approve(runId: string, stepId: string, note?: string): Promise<void> {
    return this.#withRun(runId, async (state) => {
      const row = waitingRow(state, stepId);
      row.approved = true;
      row.note = note ?? null;
      row.state = 'pending';
      this.#deps.repo.saveStep(row);
      await this.#driver.advance(state);
    });
  }

  /** Refuse a step that waits for approval: the run stops as `rejected`. */
  reject(runId: string, stepId: string, note?: string): Promise<void> {
    return this.#withRun(runId, async (state) => {
      const row = waitingRow(state, stepId);
      row.state = 'rejected';
      row.note = note ?? null;
      row.finishedAt = this.#deps.clock.now();
      this.#deps.repo.saveStep(row);
      const message = `step ${stepId} was rejected${note ? `: ${note}` : ''}`;
      await endRun(this.#deps, this.#driver.attempts.timers, state, {
        state: 'rejected',
        code: 'WORKFLOW_REJECTED',
        message,
      });
    });
  }

  /** A step's lane item ended (the lanes deliver `source: 'workflow'` items here). */
  async laneResult(item: LaneItem): Promise<void> {
    const [runId, stepId, index] = (item.sourceRef ?? '').split('/');
    // Before start, results wait in mesh.db: `start` reads them back by key.
    const active = runId === undefined ? undefined : this.#runs.get(runId);
    if (!active || stepId === undefined) return;
    await this.#exclusive(active, async () => {
      const row = active.state.rows.get(rowKey(stepId, Number(index)));
      if (row) await this.#driver.attempts.result(active.state, row, item);
      await this.#driver.advance(active.state);
    });
  }

  /** Run ids the engine is driving now. */
  activeRunIds(): string[] {
    return [...this.#runs.keys()];
  }

  async #resume(state: RunState): Promise<void> {
    const { attempts } = this.#driver;
    this.#armRunDeadline(state);
    for (const row of [...state.rows.values()]) {
      if (state.run.state !== 'running') return;
      if (row.state === 'retry_wait' || row.state === 'waiting_agent') {
        const newTry = row.state === 'retry_wait';
        const waitingIn = row.state;
        this.#schedule(state, `${rowKey(row.stepId, row.item)}:retry`, row.notBefore ?? 0, async () => {
          if (row.state === waitingIn) await attempts.dispatch(state, row, { newTry });
        });
      } else if (row.state === 'running' && row.laneKey !== null) {
        await this.#reattach(state, row);
      }
    }
    await this.#driver.advance(state);
  }

  /** A try that was in flight when the host stopped: take its result, or hand it over again under the same key. */
  async #reattach(state: RunState, row: StepRecord): Promise<void> {
    const { attempts } = this.#driver;
    const item = this.#deps.lanes.byKey(row.laneKey ?? '');
    if (!item) return attempts.dispatch(state, row, { newTry: false });
    row.laneItemId = item.id;
    if (item.state === 'queued' || item.state === 'running') return attempts.rearmDeadline(state, row);
    await attempts.result(state, row, item);
  }

  #armRunDeadline(state: RunState): void {
    const { deadlineAt } = state.run;
    if (deadlineAt === null) return;
    this.#schedule(state, 'run:deadline', deadlineAt, async () => {
      const minutes = Math.round((state.run.definition.timeout ?? 0) / 60_000);
      await endRun(this.#deps, this.#driver.attempts.timers, state, {
        state: 'failed',
        code: 'WORKFLOW_TIMEOUT',
        message: `the run did not finish within ${minutes >= 1 ? `${minutes}m` : `${Math.round((state.run.definition.timeout ?? 0) / 1000)}s`}`,
      });
    });
  }

  #track(state: RunState): ActiveRun {
    const active: ActiveRun = { state, chain: Promise.resolve(), timers: new Map() };
    this.#runs.set(state.run.id, active);
    return active;
  }

  /** Run `work` after the run's earlier work; a run that has ended is dropped afterwards. */
  #exclusive<T>(active: ActiveRun, work: () => Promise<T>): Promise<T> {
    const result = active.chain.then(work);
    active.chain = result
      .catch((error: unknown) => {
        // An OpenLegionError went to the caller (an operator call refused); anything else is a fault.
        if (!isOpenLegionError(error))
          this.#deps.logger.error(
            { err: error, run: active.state.run.id },
            'workflow run work failed unexpectedly',
          );
      })
      .finally(() => {
        if (active.state.run.state !== 'running' && this.#runs.get(active.state.run.id) === active) {
          for (const timer of active.timers.values()) timer.cancel();
          this.#runs.delete(active.state.run.id);
        }
      });
    return result;
  }

  async #withRun(runId: string, work: (state: RunState) => Promise<void>): Promise<void> {
    const active = this.#runs.get(runId);
    if (!active) {
      const run = this.#deps.repo.run(runId);
      if (!run)
        throw new OpenLegionError('WORKFLOW_RUN_UNKNOWN', `no workflow run "${runId}"`, {
          details: { run: runId },
        });
      throw new OpenLegionError('WORKFLOW_RUN_FINISHED', `run ${runId} has already ended (${run.state})`, {
        details: { run: runId, state: run.state },
      });
    }
    return this.#exclusive(active, async () => {
      if (active.state.run.state !== 'running')
        throw new OpenLegionError(
          'WORKFLOW_RUN_FINISHED',
          `run ${runId} has already ended (${active.state.run.state})`,
        );
      await work(active.state);
    });
  }

  #schedule(state: RunState, name: string, at: number, action: () => Promise<void>): void {
    const active = this.#runs.get(state.run.id);
    if (!active || this.#stopped) return;
    active.timers.get(name)?.cancel();
    const timer = this.#deps.clock.setTimeout(
      () => {
        if (active.timers.get(name) !== timer) return;
        active.timers.delete(name);
        void this.#exclusive(active, async () => {
          if (state.run.state !== 'running') return;
          await action();
          await this.#driver.advance(state);
        }).catch((error: unknown) => {
          if (isOpenLegionError(error))
            this.#deps.logger.error({ err: error, run: state.run.id, timer: name }, 'workflow timer failed');
        });
      },
      Math.max(0, at - this.#deps.clock.now()),
    );
    active.timers.set(name, timer);
  }

  /** Drop a timer; `*` drops all of the run's. */
  #unschedule(state: RunState, name: string): void {
    const active = this.#runs.get(state.run.id);
    if (!active) return;
    for (const [timerName, timer] of [...active.timers]) {
      if (name !== '*' && timerName !== name) continue;
      timer.cancel();
      active.timers.delete(timerName);
    }
  }
}

function waitingRow(state: RunState, stepId: string): StepRecord {
  if (!state.steps.has(stepId))
    throw new OpenLegionError('WORKFLOW_NOT_WAITING', `run ${state.run.id} has no step "${stepId}"`, {
      details: { steps: [...state.steps.keys()] },
    });
  const row = stepRow(state, stepId);
  if (row.state !== 'waiting_approval')
    throw new OpenLegionError(
      'WORKFLOW_NOT_WAITING',
      `step ${stepId} of run ${state.run.id} is ${row.state}, not waiting for approval`,
      {
        details: { state: row.state },
      },
    );
  return row;
}
