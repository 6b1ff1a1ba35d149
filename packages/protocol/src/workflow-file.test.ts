import { describe, expect, it } from 'vitest';
import { stepFallback, stepRetries, workflowFileSchema } from './index.js';

const minimal = { name: 'w', steps: [{ id: 'a', agent: 'x', task: 'do it' }] };
const issues = (input: unknown) =>
  (workflowFileSchema.safeParse(input).error?.issues ?? []).map(
    (issue) => `${issue.path.join('.')}: ${issue.message}`,
  );

describe('workflowFileSchema', () => {
  it('fills defaults: text output, abort on failure, 5 s backoff, no dependencies', () => {
    const step = workflowFileSchema.parse(minimal).steps[0];
    expect(step).toMatchObject({
      output: 'text',
      on_failure: 'abort',
      backoff: 5_000,
      depends_on: [],
      requires_approval: false,
    });
  });

  it('reads durations with units and a single dependency as a list', () => {
    const parsed = workflowFileSchema.parse({
      ...minimal,
      timeout: '2h',
      steps: [
        { id: 'a', agent: 'x', task: 't', timeout: '90s', backoff: 250 },
        { id: 'b', agent: 'x', task: 't', depends_on: 'a', backoff: '1m' },
      ],
    });
    expect(parsed.timeout).toBe(7_200_000);
    expect(parsed.steps[0]).toMatchObject({ timeout: 90_000, backoff: 250 });
    expect(parsed.steps[1]).toMatchObject({ depends_on: ['a'], backoff: 60_000 });
  });

  it('gives retry two tries after the first unless max_retries says otherwise, and names fallbacks', () => {
    const steps = workflowFileSchema.parse({
      name: 'w',
      steps: [
        { id: 'a', agent: 'x', task: 't', on_failure: 'retry' },
        { id: 'b', agent: 'x', task: 't', on_failure: { fallback: 'y' }, max_retries: 1 },
        { id: 'c', agent: 'x', task: 't' },
      ],
    }).steps;
    expect(steps.map(stepRetries)).toEqual([2, 1, 0]);
    expect(steps.map(stepFallback)).toEqual([undefined, 'y', undefined]);
  });

  it('lets an approval gate go without agent and task, but no other step', () => {
    expect(issues({ name: 'w', steps: [{ id: 'gate', requires_approval: true }] })).toEqual([]);
    expect(issues({ name: 'w', steps: [{ id: 'a' }] })).toEqual([
      'steps.0.agent: a step needs an agent (or is an approval gate)',
      'steps.0.task: a step needs a task (or is an approval gate)',
    ]);
  });

  it('names each bad field: trigger, on_failure, output schema, concurrency, duration, input default', () => {
    const found = issues({
      name: 'w',
      inputs: { n: { type: 'number', default: 'three' } },
      trigger: { topic: 'a', cron: 'every 1h' },
      steps: [
        {
          id: 'a',
          agent: 'x',
          task: 't',
          on_failure: 'panic',
          output: { json: { type: 'nonsense' } },
          concurrency: 2,
          timeout: 'soon',
        },
      ],
    });
    expect(found).toEqual(
      expect.arrayContaining([
        'inputs.n.default: the default is not a number',
        'trigger: give either topic or cron',
        'steps.0.on_failure: use retry, skip, abort or { fallback: <agent> }',
        expect.stringMatching(/^steps\.0\.output\.json: not a usable JSON Schema/),
        'steps.0.concurrency: concurrency goes with for_each',
        'steps.0.timeout: use a duration like 30s, 10m or 2h (or a number of milliseconds)',
      ]),
    );
  });

  it('refuses unknown fields and step ids that expressions could not name', () => {
    expect(issues({ name: 'w', steps: [{ id: '1st', agent: 'x', task: 't', retries: 3 }] })).toEqual([
      'steps.0.id: use letters, digits, "_" and "-", starting with a letter or "_"',
      'steps.0: Unrecognized key: "retries"',
    ]);
  });
});
