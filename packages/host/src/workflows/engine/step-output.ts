import { OpenLegionError, type WorkflowStep } from '@openlegion/protocol';
import { z } from 'zod';

/** JSON Schemas compiled once per schema object (a run's definition keeps the same objects). */
const compiled = new WeakMap<object, z.ZodType>();

/**
 * A step's output from its agent's reply: the trimmed text, or for `output: { json }` the JSON in
 * the reply (a fenced ```json block or the outermost object/list) checked against the schema.
 *
 * @throws OpenLegionError WORKFLOW_OUTPUT_INVALID (retryable: the agent may do better next try).
 */
export function stepOutput(step: WorkflowStep, reply: string): unknown {
  const text = reply.trim();
  if (step.output === 'text') return text;
  const schema = step.output.json;
  let validator = compiled.get(schema);
  if (!validator) {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    compiled.set(schema, validator);
  }
  const value = extractJson(text);
  if (value === undefined) throw invalid(step, 'the reply holds no JSON', text);
  const result = validator.safeParse(value);
  if (!result.success) {
    const issues = result.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw invalid(step, `the JSON does not match the schema: ${issues.join('; ')}`, text);
  }
  return result.data;
}

function extractJson(text: string): unknown {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/.exec(text)?.[1];
  const candidates = [fenced, text, outermost(text, '{', '}'), outermost(text, '[', ']')];
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // Try the next way the JSON might be embedded.
    }
  }
  return undefined;
}

function outermost(text: string, open: string, close: string): string | undefined {
  const start = text.indexOf(open);
  const end = text.lastIndexOf(close);
  return start !== -1 && end > start ? text.slice(start, end + 1) : undefined;
}

function invalid(step: WorkflowStep, why: string, text: string): OpenLegionError {
  const preview = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return new OpenLegionError('WORKFLOW_OUTPUT_INVALID', `step ${step.id}: ${why} (reply: ${preview})`);
}
