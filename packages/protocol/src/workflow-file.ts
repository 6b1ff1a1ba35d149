import { z } from 'zod';
import type { DeepReadonly } from './deep-readonly.js';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+)\s*(ms|s|m|h|d)$/;

/** `30s`, `10m`, `2h`, `1d`, `500ms`, or a number of milliseconds; parsed to milliseconds. */
const DURATION_HINT = 'use a duration like 30s, 10m or 2h (or a number of milliseconds)';
const duration = z
  .union([z.number().int().positive(), z.string().regex(DURATION, DURATION_HINT)], { error: DURATION_HINT })
  .transform((value) => {
    if (typeof value === 'number') return value;
    const [, amount, unit] = DURATION.exec(value) ?? [];
    return Number(amount) * UNIT_MS[(unit ?? 'ms') as keyof typeof UNIT_MS];
  });

/** Names steps and inputs are referred to by in templates and expressions (`steps.<id>.output`). */
const identifier = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'use letters, digits, "_" and "-", starting with a letter or "_"');

export const WORKFLOW_INPUT_TYPES = ['string', 'number', 'boolean', 'list', 'object'] as const;
export type WorkflowInputType = (typeof WORKFLOW_INPUT_TYPES)[number];

const inputSchema = z
  .object({
    type: z.enum(WORKFLOW_INPUT_TYPES).default('string'),
    description: z.string().default(''),
    /** Without a default the input must be given when the run starts. */
    default: z.unknown().optional(),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.default !== undefined && !matchesInputType(input.type, input.default))
      ctx.addIssue({
        code: 'custom',
        path: ['default'],
        message: `the default is not ${input.type === 'object' ? 'an' : 'a'} ${input.type}`,
      });
  });

/** Whether a value is of a declared input type (`list` is an array, `object` a plain map). */
export function matchesInputType(type: WorkflowInputType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'list':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

/** When runs start besides `openlegion workflow run`: on a pub/sub topic, or on a schedule. */
const triggerSchema = z
  .object({
    /** A topic (or pattern) on the mesh's pub/sub; the event's payload is `${trigger.payload}`. */
    topic: z.string().min(1).optional(),
    /** `every 1h`, `at <ISO time>` or 5 cron fields, as in mesh.yaml's cron. */
    cron: z.string().min(1).optional(),
    timezone: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((trigger, ctx) => {
    if ((trigger.topic === undefined) === (trigger.cron === undefined))
      ctx.addIssue({ code: 'custom', path: [], message: 'give either topic or cron' });
    if (trigger.timezone !== undefined && trigger.cron === undefined)
      ctx.addIssue({ code: 'custom', path: ['timezone'], message: 'timezone goes with cron' });
  });

const onFailureSchema = z.union(
  [z.enum(['retry', 'skip', 'abort']), z.object({ fallback: z.string().min(1) }).strict()],
  { error: 'use retry, skip, abort or { fallback: <agent> }' },
);

/** A JSON Schema (the subset zod can read) that a step's JSON output must match. */
const jsonSchema = z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
  try {
    z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `not a usable JSON Schema: ${(error as Error).message}` });
  }
});

const outputSchema = z.union([z.literal('text'), z.object({ json: jsonSchema }).strict()], {
  error: 'use text, or { json: <JSON Schema> }',
});

const blackboardKey = z
  .string()
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,199}$/, 'use letters, digits and _ . : / - (max 200)');

const stepSchema = z
  .object({
    id: identifier,
    /** The agent whose lane runs the step. Optional only for an approval gate. */
    agent: z.string().min(1).optional(),
    /** What the agent is asked; `${inputs.x}`, `${steps.a.output}`, `${item}` ... are filled in. */
    task: z.string().min(1).optional(),
    depends_on: z.union([identifier.transform((id) => [id]), z.array(identifier)]).default([]),
    /** Run only when this expression holds (else the step is skipped). */
    when: z.string().min(1).optional(),
    on_failure: onFailureSchema.default('abort'),
    /** Tries after the first; default 2 with `on_failure: retry`, else 0. */
    max_retries: z.number().int().min(0).max(20).optional(),
    /** The wait before the first retry; it doubles with each further one. */
    backoff: duration.default(5_000),
    timeout: duration.optional(),
    /** Wait for `openlegion workflow approve` before the step runs. */
    requires_approval: z.boolean().default(false),
    output: outputSchema.default('text'),
    /** A blackboard key the step's output is saved to. */
    save_to: blackboardKey.optional(),
    /** Run the step once per element of this list expression (`${item}`, `${index}` in the task). */
    for_each: z.string().min(1).optional(),
    /** How many elements of a `for_each` run at once. */
    concurrency: z.number().int().min(1).max(100).optional(),
  })
  .strict()
  .superRefine(
    (step, ctx) => {
      const gate = step.requires_approval && step.agent === undefined && step.task === undefined;
      if (!gate && step.agent === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['agent'],
          message: 'a step needs an agent (or is an approval gate)',
        });
      if (!gate && step.task === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['task'],
          message: 'a step needs a task (or is an approval gate)',
        });
      if (step.concurrency !== undefined && step.for_each === undefined)
        ctx.addIssue({ code: 'custom', path: ['concurrency'], message: 'concurrency goes with for_each' });
      // Also when other fields failed, so that one pass reports every problem.
    },
    { when: () => true },
  );

const onCompleteSchema = z
  .object({
    /** Publish `{ workflow, run, state, outputs }` to this topic when the run ends. */
    publish: z.string().min(1).optional(),
    /** Send this text (templated) to the operator's channel when the run ends. */
    notify: z.string().min(1).optional(),
  })
  .strict();

/**
 * A workflow file (`workflows/*.yaml`): a DAG of steps, each handed to an agent's lane. The host
 * checks what zod cannot (references, cycles, agents, expressions) and locates every problem.
 */
export const workflowFileSchema = z
  .object({
    name: identifier,
    description: z.string().default(''),
    inputs: z.record(identifier, inputSchema).default({}),
    /** Omitted: the workflow runs only when started by hand. */
    trigger: triggerSchema.optional(),
    /** The whole run's limit. */
    timeout: duration.optional(),
    steps: z.array(stepSchema).min(1, 'give at least one step'),
    on_complete: onCompleteSchema.optional(),
  })
  .strict();

export type WorkflowDefinition = DeepReadonly<z.output<typeof workflowFileSchema>>;
export type WorkflowStep = WorkflowDefinition['steps'][number];
export type WorkflowInput = WorkflowDefinition['inputs'][string];
export type WorkflowFileInput = z.input<typeof workflowFileSchema>;

/** The tries a step gets after its first: `max_retries`, else 2 for `on_failure: retry`, else 0. */
export function stepRetries(step: WorkflowStep): number {
  return step.max_retries ?? (step.on_failure === 'retry' ? 2 : 0);
}

/** The fallback agent of a step, if its `on_failure` names one. */
export function stepFallback(step: WorkflowStep): string | undefined {
  return typeof step.on_failure === 'object' ? step.on_failure.fallback : undefined;
}
