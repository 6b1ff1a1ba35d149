import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import path from 'node:path';
import {
  deepFreeze,
  isOpenLegionError,
  OpenLegionError,
  type WorkflowDefinition,
  workflowFileSchema,
} from '@openlegion/protocol';
import { type ConfigProblem, problemsMessage, sortProblems, YamlSource } from '../../config/index.js';
import { salvageWorkflow } from './workflow-salvage.js';
import { validateWorkflow } from './workflow-validator.js';

/** A workflow file read and validated. */
export interface LoadedWorkflow {
  definition: WorkflowDefinition;
  /** Absolute path of the file. */
  file: string;
  /** sha256 of the text: which version of the file a run started with. */
  version: string;
}

/**
 * Bigger workflow files are refused unread: YAML is parsed on the host's event loop (about 0.3 s
 * per MiB), every list and trigger reads every file again, and a real workflow is a few KiB.
 */
export const MAX_WORKFLOW_FILE_BYTES = 256 * 1024;

/**
 * Read and validate a workflow file against the mesh's agents. Every problem is collected and
 * thrown as one WORKFLOW_INVALID whose `details.problems` locate each one (`file:line:col`).
 */
export async function loadWorkflowFile(file: string, agents: readonly string[]): Promise<LoadedWorkflow> {
  let text: string;
  try {
    const handle = await open(file);
    try {
      const { size } = await handle.stat();
      if (size > MAX_WORKFLOW_FILE_BYTES)
        throw workflowError(file, [
          fileProblem(
            file,
            `the file is ${size} bytes; a workflow file is at most ${MAX_WORKFLOW_FILE_BYTES} (256 KiB)`,
          ),
        ]);
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (cause) {
    if (isOpenLegionError(cause)) throw cause;
    throw new OpenLegionError('WORKFLOW_UNKNOWN', `cannot read ${file}: ${(cause as Error).message}`, {
      cause,
    });
  }
  return { ...parseWorkflowFile(text, file, agents), file: path.resolve(file) };
}

/**
 * Parse and validate workflow text; `file` is only used in messages. Whatever goes wrong with one
 * file is that file's WORKFLOW_INVALID, so the other workflows still list, load and trigger.
 */
export function parseWorkflowFile(text: string, file: string, agents: readonly string[]): LoadedWorkflow {
  try {
    return validatedWorkflow(text, file, agents);
  } catch (error) {
    if (isOpenLegionError(error)) throw error;
    throw workflowError(
      file,
      [fileProblem(file, `cannot read the workflow: ${(error as Error).message}`)],
      error,
    );
  }
}

function validatedWorkflow(text: string, file: string, agents: readonly string[]): LoadedWorkflow {
  const source = YamlSource.parse(text, file);
  const syntax = source.syntaxProblems();
  if (syntax.length > 0) throw workflowError(file, syntax);
  const raw = source.toJS();
  const parsed = workflowFileSchema.safeParse(raw);
  if (!parsed.success) {
    // What still parses is checked too, so that every problem is reported in one pass.
    const salvaged = salvageWorkflow(raw);
    const more = salvaged
      ? validateWorkflow(salvaged, agents).map(({ path: at, message }) => source.problem(at, message))
      : [];
    throw workflowError(file, sortProblems([...source.zodProblems(parsed.error), ...more]));
  }
  const definition = deepFreeze(parsed.data);
  const problems = validateWorkflow(definition, agents).map(({ path: at, message }) =>
    source.problem(at, message),
  );
  if (problems.length > 0) throw workflowError(file, sortProblems(problems));
  return { definition, file, version: createHash('sha256').update(text).digest('hex') };
}

/** The located problems of a WORKFLOW_INVALID error, or undefined for any other error. */
export function workflowProblems(error: unknown): ConfigProblem[] | undefined {
  if (!isOpenLegionError(error) || error.code !== 'WORKFLOW_INVALID') return undefined;
  return (error.details as { problems: ConfigProblem[] }).problems;
}

function workflowError(file: string, problems: ConfigProblem[], cause?: unknown): OpenLegionError {
  return new OpenLegionError('WORKFLOW_INVALID', problemsMessage(file, problems), {
    details: { problems },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** A problem with the file as a whole, placed at its start. */
function fileProblem(file: string, message: string): ConfigProblem {
  return { file, line: 1, col: 1, field: '', message };
}
