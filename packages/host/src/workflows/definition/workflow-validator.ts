import { stepFallback, type WorkflowDefinition, type WorkflowStep } from '@openlegion/protocol';
import { type FieldPath, parseSchedule } from '../../config/index.js';
import {
  ExpressionError,
  expressionPaths,
  type PathReference,
  parseExpression,
  parseTemplate,
} from '../expression/index.js';
import { findCycles, upstreamSets } from './workflow-graph.js';
import { type ReferenceScope, referenceProblem } from './workflow-references.js';

/** A problem the schema cannot see, at the field it is about. */
export interface WorkflowProblem {
  path: FieldPath;
  message: string;
}

/**
 * Everything wrong with a schema-valid workflow, all at once: duplicate and unknown step ids,
 * cycles (as a path), unknown agents, bad expressions and templates, references to steps that
 * have not run yet or to inputs that are not declared, schedules, and inputs a cron run lacks.
 */
export function validateWorkflow(workflow: WorkflowDefinition, agents: readonly string[]): WorkflowProblem[] {
  const problems: WorkflowProblem[] = [];
  const add = (path: FieldPath, message: string) => problems.push({ path, message });
  const ids = new Set<string>();
  workflow.steps.forEach((step, i) => {
    if (ids.has(step.id)) add(['steps', i, 'id'], `step id "${step.id}" is used twice`);
    ids.add(step.id);
  });
  workflow.steps.forEach((step, i) => {
    step.depends_on.forEach((dependency, j) => {
      if (!ids.has(dependency))
        add(['steps', i, 'depends_on', j], `no step "${dependency}" (steps: ${[...ids].join(', ')})`);
    });
  });
  for (const cycle of findCycles(workflow.steps)) {
    const at = workflow.steps.findIndex((step) => step.id === cycle[0]);
    add(['steps', at, 'depends_on'], `the steps wait for each other in a cycle: ${cycle.join(' → ')}`);
  }
  const upstream = upstreamSets(workflow.steps);
  workflow.steps.forEach((step, i) => {
    checkAgents(step, i, agents, add);
    const scope = (hasItem: boolean): ReferenceScope => ({
      step: step.id,
      upstream: upstream.get(step.id) ?? new Set(),
      hasItem,
    });
    const check = (references: PathReference[], path: FieldPath, hasItem: boolean) => {
      for (const reference of references) {
        const problem = referenceProblem(reference, workflow, scope(hasItem), ids);
        if (problem) add(path, problem);
      }
    };
    if (step.task !== undefined)
      check(
        templatePaths(step.task, ['steps', i, 'task'], add),
        ['steps', i, 'task'],
        step.for_each !== undefined,
      );
    if (step.when !== undefined)
      check(expressionPathsOf(step.when, ['steps', i, 'when'], add), ['steps', i, 'when'], false);
    if (step.for_each !== undefined) {
      check(expressionPathsOf(step.for_each, ['steps', i, 'for_each'], add), ['steps', i, 'for_each'], false);
      if (step.agent === undefined) add(['steps', i, 'for_each'], 'an approval gate cannot fan out');
    }
  });
  if (workflow.on_complete?.notify !== undefined) {
    const path = ['on_complete', 'notify'];
    const everything: ReferenceScope = { upstream: ids, hasItem: false };
    for (const reference of templatePaths(workflow.on_complete.notify, path, add)) {
      const problem = referenceProblem(reference, workflow, everything, ids);
      if (problem) add(path, problem);
    }
  }
  checkTrigger(workflow, add);
  return problems;
}

type Add = (path: FieldPath, message: string) => void;

function checkAgents(step: WorkflowStep, i: number, agents: readonly string[], add: Add): void {
  const known = (agent: string) => agents.includes(agent);
  const list = agents.join(', ');
  if (step.agent !== undefined && !known(step.agent))
    add(['steps', i, 'agent'], `no agent "${step.agent}" in mesh.yaml (agents: ${list})`);
  const fallback = stepFallback(step);
  if (fallback !== undefined && !known(fallback))
    add(['steps', i, 'on_failure', 'fallback'], `no agent "${fallback}" in mesh.yaml (agents: ${list})`);
}

function checkTrigger(workflow: WorkflowDefinition, add: Add): void {
  const trigger = workflow.trigger;
  if (trigger?.cron === undefined) return;
  try {
    parseSchedule(trigger.cron, trigger.timezone);
  } catch (error) {
    add(['trigger', 'cron'], (error as Error).message);
  }
  for (const [name, input] of Object.entries(workflow.inputs)) {
    if (input.default === undefined)
      add(['inputs', name], `a cron-triggered run is given no inputs: give "${name}" a default`);
  }
}

function templatePaths(text: string, path: FieldPath, add: Add): PathReference[] {
  try {
    return parseTemplate(text).flatMap((part) => (part.kind === 'path' ? [part] : []));
  } catch (error) {
    add(path, expressionMessage(error));
    return [];
  }
}

function expressionPathsOf(text: string, path: FieldPath, add: Add): PathReference[] {
  try {
    return expressionPaths(parseExpression(text));
  } catch (error) {
    add(path, expressionMessage(error));
    return [];
  }
}

function expressionMessage(error: unknown): string {
  if (!(error instanceof ExpressionError)) throw error;
  return error.at === undefined ? error.message : `${error.message} (at character ${error.at + 1})`;
}
