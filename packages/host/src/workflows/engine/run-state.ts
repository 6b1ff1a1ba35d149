import { FINAL_STEP_STATES, type WorkflowStep, type WorkflowStepState } from '@openlegion/protocol';
import {
  type Expression,
  ExpressionError,
  type PathResolver,
  parseExpression,
  parseTemplate,
  readPath,
  type TemplatePart,
} from '../expression/index.js';
import { type RunRecord, rowKey, STEP_ROW, type StepRecord } from '../store/workflow-records.js';

/** A step's task and conditions, parsed once per run. */
export interface CompiledStep {
  step: WorkflowStep;
  task: TemplatePart[] | undefined;
  when: Expression | undefined;
  forEach: Expression | undefined;
}

/** A run the engine is driving: its record, its rows by `rowKey`, and its parsed steps. */
export interface RunState {
  run: RunRecord;
  rows: Map<string, StepRecord>;
  steps: Map<string, CompiledStep>;
}

export const isFinal = (state: WorkflowStepState) => FINAL_STEP_STATES.includes(state);

/** Build the in-memory state of a run from its record and rows (new, or read back after a restart). */
export function runState(run: RunRecord, rows: readonly StepRecord[]): RunState {
  const steps = new Map<string, CompiledStep>();
  // The definition was validated when the run started: these parse.
  for (const step of run.definition.steps) {
    steps.set(step.id, {
      step,
      task: step.task === undefined ? undefined : parseTemplate(step.task),
      when: step.when === undefined ? undefined : parseExpression(step.when),
      forEach: step.for_each === undefined ? undefined : parseExpression(step.for_each),
    });
  }
  return { run, rows: new Map(rows.map((row) => [rowKey(row.stepId, row.item), row])), steps };
}

/** The row of a step itself. */
export function stepRow(state: RunState, stepId: string): StepRecord {
  const row = state.rows.get(rowKey(stepId, STEP_ROW));
  if (!row) throw new Error(`run ${state.run.id} has no row for step ${stepId}`);
  return row;
}

/** The rows of a `for_each` step's elements, in order. */
export function itemRows(state: RunState, stepId: string): StepRecord[] {
  const items: StepRecord[] = [];
  for (let index = 0; ; index++) {
    const row = state.rows.get(rowKey(stepId, index));
    if (!row) return items;
    items.push(row);
  }
}

/** The compiled step of a row. */
export function compiledStep(state: RunState, stepId: string): CompiledStep {
  const compiled = state.steps.get(stepId);
  if (!compiled) throw new Error(`run ${state.run.id} has no step ${stepId}`);
  return compiled;
}

/**
 * What `inputs.*`, `trigger.*`, `steps.<id>.output|status`, `item` and `index` read in a run, seen
 * from `row`. A step output that does not exist yet throws (a skipped step's output is null).
 */
export function runValues(state: RunState, row?: StepRecord): PathResolver {
  return (root, segments) => {
    switch (root) {
      case 'inputs':
        return readPath(state.run.inputs, segments);
      case 'trigger':
        return readPath(state.run.trigger, segments);
      case 'item':
        return row && row.item !== STEP_ROW ? readPath(row.itemValue, segments) : undefined;
      case 'index':
        return row && row.item !== STEP_ROW ? row.item : undefined;
      case 'steps':
        return stepValue(state, segments);
      default:
        throw new ExpressionError(`unknown name "${root}"`);
    }
  };
}

function stepValue(state: RunState, segments: readonly (string | number)[]): unknown {
  const [id, field, ...rest] = segments;
  const row = state.rows.get(rowKey(String(id), STEP_ROW));
  if (!row) throw new ExpressionError(`no step "${String(id)}" in this run`);
  if (field === 'status') return row.state;
  if (field !== 'output') throw new ExpressionError(`a step has output and status, not "${String(field)}"`);
  if (row.state === 'done') return readPath(row.output, rest);
  if (isFinal(row.state)) return null;
  throw new ExpressionError(
    `steps.${String(id)}.output does not exist yet: step ${String(id)} is ${row.state}`,
  );
}
