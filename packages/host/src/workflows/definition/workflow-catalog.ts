import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { isOpenLegionError, OpenLegionError, type WorkflowListing } from '@openlegion/protocol';
import { formatConfigProblem } from '../../config/index.js';
import { type LoadedWorkflow, loadWorkflowFile, workflowProblems } from './workflow-file.js';

type Entry = { file: string; loaded: LoadedWorkflow } | { file: string; error: OpenLegionError };

/**
 * The workflow files in mesh.yaml's `workflows:` folder (`*.yaml`, `*.yml`). Files are read anew
 * on each call: a changed file counts for the next run, never for a run already going.
 */
export class WorkflowCatalog {
  readonly #dir: string | undefined;
  readonly #agents: readonly string[];

  constructor(dir: string | undefined, agents: readonly string[]) {
    this.#dir = dir;
    this.#agents = agents;
  }

  /** Every file: its workflow, or its problems. */
  async list(): Promise<WorkflowListing[]> {
    return (await this.#entries()).map((entry) => {
      const file = this.#relative(entry.file);
      if ('error' in entry) {
        const problems = workflowProblems(entry.error)?.map(formatConfigProblem) ?? [entry.error.message];
        const name = path.basename(entry.file).replace(/\.ya?ml$/, '');
        return { name, file, description: '', trigger: '-', steps: 0, inputs: [], problems };
      }
      const { definition } = entry.loaded;
      const trigger = definition.trigger?.topic
        ? `topic ${definition.trigger.topic}`
        : definition.trigger?.cron
          ? `cron ${definition.trigger.cron}`
          : 'manual';
      return {
        name: definition.name,
        file,
        description: definition.description,
        trigger,
        steps: definition.steps.length,
        inputs: Object.entries(definition.inputs).map(([name, input]) => ({
          name,
          type: input.type,
          required: input.default === undefined,
        })),
        problems: [],
      };
    });
  }

  /** The valid workflows (for triggers); invalid files are passed to `onInvalid`. */
  async valid(onInvalid: (error: OpenLegionError) => void): Promise<LoadedWorkflow[]> {
    const entries = await this.#entries();
    for (const entry of entries) if ('error' in entry) onInvalid(entry.error);
    return entries.flatMap((entry) => ('loaded' in entry ? [entry.loaded] : []));
  }

  /**
   * The workflow called `name`, read now. A file whose name matches but that does not validate
   * throws its WORKFLOW_INVALID; no match is WORKFLOW_UNKNOWN.
   */
  async load(name: string): Promise<LoadedWorkflow> {
    const entries = await this.#entries();
    const found = entries.find((entry) => 'loaded' in entry && entry.loaded.definition.name === name);
    if (found && 'loaded' in found) return found.loaded;
    const broken = entries.find((entry) => path.basename(entry.file).replace(/\.ya?ml$/, '') === name);
    if (broken && 'error' in broken) throw broken.error;
    const names = entries.flatMap((entry) => ('loaded' in entry ? [entry.loaded.definition.name] : []));
    throw new OpenLegionError(
      'WORKFLOW_UNKNOWN',
      this.#dir
        ? `no workflow "${name}" in ${this.#dir} (workflows: ${names.join(', ') || 'none'})`
        : `no workflow "${name}": mesh.yaml names no workflows folder (workflows: <folder>)`,
      { details: { workflows: names } },
    );
  }

  async #entries(): Promise<Entry[]> {
    if (!this.#dir) return [];
    let files: string[];
    try {
      files = (await readdir(this.#dir)).filter((file) => /\.ya?ml$/.test(file)).sort();
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw cause;
    }
    return Promise.all(
      files.map(async (name): Promise<Entry> => {
        const file = path.join(this.#dir ?? '', name);
        try {
          return { file, loaded: await loadWorkflowFile(file, this.#agents) };
        } catch (error) {
          if (isOpenLegionError(error)) return { file, error };
          throw error;
        }
      }),
    );
  }

  #relative(file: string): string {
    return path.relative(process.cwd(), file) || file;
  }
}
