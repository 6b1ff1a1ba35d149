import { workflowFileSchema } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { ExpressionError, parseTemplate, renderTemplate } from '../expression/index.js';
import { type RunRecord, STEP_ROW } from '../store/workflow-records.js';
import { listOf } from './fan-out-list.js';
import { resolveInputs } from './run-inputs.js';
import { runState, runValues } from './run-state.js';
import { stepOutput } from './step-output.js';
import { newStepRow } from './step-rows.js';

const workflow = workflowFileSchema.parse({
  name: 'w',
  inputs: {
    n: { type: 'number' },
    on: { type: 'boolean', default: false },
    tags: { type: 'list', default: [] },
    meta: { type: 'object', default: {} },
  },
  steps: [
    { id: 'a', agent: 'x', task: 't' },
    { id: 'b', agent: 'x', task: '${steps.a.output}', depends_on: 'a' },
    {
      id: 'j',
      agent: 'x',
      task: 't',
      output: { json: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
    },
  ],
});

describe('run inputs', () => {
  it('reads command-line text as the declared types and fills defaults', () => {
    expect(resolveInputs(workflow, { n: ' 4.5 ', on: 'true', tags: 'a, b', meta: '{"k":1}' })).toEqual({
      n: 4.5,
      on: true,
      tags: ['a', 'b'],
      meta: { k: 1 },
    });
    expect(resolveInputs(workflow, { n: 1, tags: '["x"]' })).toEqual({
      n: 1,
      on: false,
      tags: ['x'],
      meta: {},
    });
  });

  it('names every input that is wrong at once', () => {
    expect(() => resolveInputs(workflow, { on: 'yes', meta: '[1]' })).toThrow(
      'workflow w: input "n" is required (number); input "on" must be a boolean; input "meta" must be an object',
    );
  });
});

describe('step output', () => {
  const step = (id: string) => {
    const found = workflow.steps.find((candidate) => candidate.id === id);
    if (!found) throw new Error(`no step ${id}`);
    return found;
  };

  it('is the trimmed reply for text, and the JSON in the reply for json', () => {
    expect(stepOutput(step('a'), '  hi \n')).toBe('hi');
    expect(stepOutput(step('j'), 'Sure:\n```json\n{"n": 3}\n```\nDone.')).toEqual({ n: 3 });
    expect(stepOutput(step('j'), 'Result: {"n": 4} as asked')).toEqual({ n: 4 });
  });

  it('refuses JSON that does not match the schema, as a retryable error naming the field', () => {
    expect(() => stepOutput(step('j'), '{"n": "four"}')).toThrow(/n: Invalid input: expected number/);
    try {
      stepOutput(step('j'), 'no json here');
    } catch (error) {
      expect(error).toMatchObject({ code: 'WORKFLOW_OUTPUT_INVALID', retryable: true });
    }
  });
});

describe('for_each lists', () => {
  it('takes lists, JSON lists in text, and one element per line of other text', () => {
    expect(listOf([1, 2])).toEqual([1, 2]);
    expect(listOf(' ["a", {"b": 1}] ')).toEqual(['a', { b: 1 }]);
    expect(listOf('- alpha\n* beta\n\n3. gamma\nplain')).toEqual(['alpha', 'beta', 'gamma', 'plain']);
    expect(listOf(null)).toEqual([]);
    expect(() => listOf({ a: 1 })).toThrow('for_each needs a list, not an object');
  });
});

describe('run values', () => {
  const run: RunRecord = {
    id: 'r',
    workflow: 'w',
    version: 'v',
    definition: workflow,
    inputs: { n: 1 },
    trigger: { kind: 'manual' },
    triggerKey: null,
    traceId: 't',
    state: 'running',
    errorCode: null,
    errorMessage: null,
    createdAt: 0,
    deadlineAt: null,
    finishedAt: null,
  };

  it('refuses to template a step output that does not exist yet', () => {
    const rows = workflow.steps.map((step) => newStepRow('r', step.id, STEP_ROW, null, 'x'));
    const state = runState(run, rows);
    const task = parseTemplate('${steps.a.output}');
    expect(() => renderTemplate(task, runValues(state), () => undefined)).toThrow(ExpressionError);
    expect(() => renderTemplate(task, runValues(state), () => undefined)).toThrow(
      'steps.a.output does not exist yet: step a is pending',
    );
    Object.assign(rows[0] ?? {}, { state: 'skipped' });
    expect(renderTemplate(task, runValues(state), () => undefined)).toBe('');
    Object.assign(rows[0] ?? {}, { state: 'done', output: 'A' });
    expect(
      renderTemplate(parseTemplate('${steps.a.output}/${steps.a.status}'), runValues(state), () => undefined),
    ).toBe('A/done');
  });
});
