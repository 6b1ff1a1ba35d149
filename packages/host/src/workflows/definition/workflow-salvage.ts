import { type WorkflowDefinition, workflowFileSchema } from '@openlegion/protocol';

const shape = workflowFileSchema.shape;

/**
 * The parts of a file that failed the schema which still parse, as a definition the validator can
 * check: so that one pass reports cycles, unknown agents and bad references together with the
 * schema's problems. A step that fails the schema keeps only its id and dependencies (checked
 * for cycles and unknown ids), nothing the schema already reported.
 */
export function salvageWorkflow(raw: unknown): WorkflowDefinition | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const fields = raw as Record<string, unknown>;
  if (!Array.isArray(fields.steps)) return undefined;
  const steps = fields.steps.map((rawStep: unknown, index: number) => {
    const parsed = shape.steps.element.safeParse(rawStep);
    if (parsed.success) return parsed.data;
    const step = typeof rawStep === 'object' && rawStep !== null ? (rawStep as Record<string, unknown>) : {};
    const dependsOn = shape.steps.element.shape.depends_on.safeParse(step.depends_on);
    // A gate without agent or task: nothing on it is checked twice.
    return shape.steps.element.parse({
      id:
        typeof step.id === 'string' && /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/.test(step.id)
          ? step.id
          : `_step${index}`,
      requires_approval: true,
      depends_on: dependsOn.success ? dependsOn.data : [],
    });
  });
  const inputs = salvageInputs(fields.inputs);
  const trigger = shape.trigger.safeParse(fields.trigger);
  const onComplete = shape.on_complete.safeParse(fields.on_complete);
  return {
    name: typeof fields.name === 'string' ? fields.name : 'workflow',
    description: '',
    inputs,
    ...(trigger.success && trigger.data ? { trigger: trigger.data } : {}),
    ...(onComplete.success && onComplete.data ? { on_complete: onComplete.data } : {}),
    steps,
  };
}

/** Each input that parses; one that does not stays declared (as text with a default), so references to it are not reported. */
function salvageInputs(raw: unknown): WorkflowDefinition['inputs'] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
  return Object.fromEntries(
    Object.entries(raw).map(([name, input]) => {
      const parsed = shape.inputs.safeParse({ [name]: input });
      const declared = parsed.success ? parsed.data[name] : undefined;
      return [name, declared ?? { type: 'string' as const, description: '', default: '' }];
    }),
  );
}
