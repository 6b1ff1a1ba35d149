import {
  matchesInputType,
  OpenLegionError,
  type WorkflowDefinition,
  type WorkflowInputType,
} from '@openlegion/protocol';

/**
 * A run's inputs: the given ones (text from the CLI is read as the declared type), defaults for
 * the rest. Every missing, unknown or mistyped input is named in one WORKFLOW_INPUT_INVALID.
 */
export function resolveInputs(
  workflow: WorkflowDefinition,
  given: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const problems: string[] = [];
  const inputs: Record<string, unknown> = {};
  const declared = Object.keys(workflow.inputs);
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(workflow.inputs, name))
      problems.push(`unknown input "${name}" (inputs: ${declared.join(', ') || 'none'})`);
  }
  for (const [name, input] of Object.entries(workflow.inputs)) {
    if (Object.hasOwn(given, name)) {
      const value = coerce(input.type, given[name]);
      if (value === undefined)
        problems.push(`input "${name}" must be ${input.type === 'object' ? 'an' : 'a'} ${input.type}`);
      else inputs[name] = value;
    } else if (input.default !== undefined) {
      inputs[name] = input.default;
    } else {
      problems.push(
        `input "${name}" is required (${input.type}${input.description ? `: ${input.description}` : ''})`,
      );
    }
  }
  if (problems.length > 0) {
    throw new OpenLegionError('WORKFLOW_INPUT_INVALID', `workflow ${workflow.name}: ${problems.join('; ')}`, {
      details: { problems },
    });
  }
  return inputs;
}

/** The value as the declared type, or undefined when it is not one (text is parsed). */
function coerce(type: WorkflowInputType, value: unknown): unknown {
  if (matchesInputType(type, value)) return value;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  switch (type) {
    case 'number':
      return text !== '' && Number.isFinite(Number(text)) ? Number(text) : undefined;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    case 'list':
      if (text.startsWith('[')) return parseAs(text, Array.isArray);
      // `--input sources=a,b,c` on the command line.
      return text === '' ? [] : text.split(',').map((part) => part.trim());
    case 'object':
      return parseAs(
        text,
        (parsed) => typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed),
      );
    default:
      return undefined;
  }
}

function parseAs(text: string, accept: (value: unknown) => boolean): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    return accept(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
