import type { WorkflowRunState } from '@openlegion/protocol';
import { parseTemplate, renderTemplate } from '../expression/index.js';
import { STEP_ROW, type StepRecord } from '../store/workflow-records.js';
import type { EngineDeps, RunTimers } from './engine-deps.js';
import { isFinal, type RunState, runValues } from './run-state.js';

/**
 * End a run: what is still open is cancelled (its lane items too), the end is written, then
 * `on_complete` publishes and notifies. Written first, so that after a host kill the end is never
 * announced twice.
 */
export async function endRun(
  deps: EngineDeps,
  timers: RunTimers,
  state: RunState,
  outcome: { state: Exclude<WorkflowRunState, 'running'>; code?: string; message?: string },
): Promise<void> {
  const now = deps.clock.now();
  const { run } = state;
  run.state = outcome.state;
  run.errorCode = outcome.code ?? null;
  run.errorMessage = outcome.message ?? null;
  run.finishedAt = now;
  const open: StepRecord[] = [];
  for (const row of state.rows.values()) {
    if (isFinal(row.state)) continue;
    row.state = 'cancelled';
    row.finishedAt = now;
    open.push(row);
  }
  timers.unschedule(state, '*');
  deps.repo.saveAll(run, open);
  for (const row of open) if (row.laneItemId !== null) deps.lanes.cancel(row.laneItemId);
  deps.logger.info(
    { run: run.id, workflow: run.workflow, state: run.state, code: run.errorCode },
    'workflow run ended',
  );
  await announce(deps, state);
}

async function announce(deps: EngineDeps, state: RunState): Promise<void> {
  const { run } = state;
  const onComplete = run.definition.on_complete;
  if (!onComplete) return;
  const by = `workflow:${run.workflow}`;
  if (onComplete.publish && deps.events) {
    const outputs: Record<string, unknown> = {};
    for (const row of state.rows.values())
      if (row.item === STEP_ROW && row.state === 'done') outputs[row.stepId] = row.output;
    const error = run.errorCode ? { code: run.errorCode, message: run.errorMessage } : null;
    try {
      deps.events.publish(
        onComplete.publish,
        { workflow: run.workflow, run: run.id, state: run.state, outputs, error },
        by,
      );
    } catch (thrown) {
      deps.logger.error(
        { err: thrown, run: run.id, topic: onComplete.publish },
        'publishing the end of a run failed',
      );
    }
  }
  if (onComplete.notify && deps.notify) {
    try {
      const text = renderTemplate(parseTemplate(onComplete.notify), runValues(state), (key) =>
        deps.blackboard.get(key),
      );
      await deps.notify({ text });
    } catch (thrown) {
      deps.logger.error({ err: thrown, run: run.id }, 'notifying the end of a run failed');
    }
  }
}
