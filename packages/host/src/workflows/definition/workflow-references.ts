import type { WorkflowDefinition } from '@openlegion/protocol';
import type { PathReference } from '../expression/index.js';

/** The fields of `steps.<id>` that templates and expressions may read. */
export const STEP_FIELDS = ['output', 'status'] as const;
/** The fields of `trigger` a run has: how it started and what the event carried. */
export const TRIGGER_FIELDS = ['kind', 'topic', 'payload'] as const;

/** Where a reference appears, which decides what it may read. */
export interface ReferenceScope {
  /** The step whose task or condition it is in; undefined for `on_complete`. */
  step?: string;
  /** The steps that finish before this one (all steps for `on_complete`). */
  upstream: ReadonlySet<string>;
  /** Whether `item`/`index` exist here (the task of a `for_each` step). */
  hasItem: boolean;
}

/** What is wrong with one reference in a workflow, or undefined when it is fine. */
export function referenceProblem(
  reference: PathReference,
  workflow: WorkflowDefinition,
  scope: ReferenceScope,
  stepIds: ReadonlySet<string>,
): string | undefined {
  const [first, second] = reference.segments;
  const name = [reference.root, ...reference.segments].join('.');
  switch (reference.root) {
    case 'inputs':
      if (first === undefined) return '"inputs" needs a name: inputs.<name>';
      if (!Object.hasOwn(workflow.inputs, String(first))) {
        const declared = Object.keys(workflow.inputs).join(', ') || 'none';
        return `${name}: no input "${first}" is declared (inputs: ${declared})`;
      }
      return undefined;
    case 'steps': {
      if (first === undefined || second === undefined)
        return `${name}: use steps.<id>.output or steps.<id>.status`;
      const id = String(first);
      if (!stepIds.has(id)) return `${name}: no step "${id}" (steps: ${[...stepIds].join(', ')})`;
      if (id === scope.step) return `${name}: a step cannot read its own ${String(second)}`;
      if (!scope.upstream.has(id))
        return `${name}: step "${id}" has not run yet when "${scope.step}" does; add it to depends_on`;
      if (!(STEP_FIELDS as readonly unknown[]).includes(second))
        return `${name}: a step has ${STEP_FIELDS.join(' and ')}, not "${String(second)}"`;
      return undefined;
    }
    case 'trigger':
      if (first !== undefined && !(TRIGGER_FIELDS as readonly unknown[]).includes(first))
        return `${name}: the trigger has ${TRIGGER_FIELDS.join(', ')}`;
      return undefined;
    case 'item':
    case 'index':
      return scope.hasItem ? undefined : `${name}: item and index exist only in the task of a for_each step`;
    default:
      return `${name}: unknown name "${reference.root}" (use inputs., steps., trigger., item or index)`;
  }
}
