import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type MeshConfig, meshConfigSchema, OpenLegionError } from '@openlegion/protocol';
import { parseSchedule } from './schedule.js';
import { templateSubscriptionProblems } from './template-subscriptions.js';
import { freezeMeshConfig } from './temporary-agents.js';
import { type ConfigProblem, problemsMessage, YamlSource } from './yaml-source.js';

export interface LoadedMeshConfig {
  config: MeshConfig;
  /** Absolute path of the file read. */
  file: string;
  /** Absolute `mesh.data_dir`, resolved against the file's folder. */
  dataDir: string;
  /** Resolve a path written in the file (relative to the file's folder). */
  resolvePath: (relative: string) => string;
}

/**
 * Read, parse and validate a mesh.yaml. Every problem is collected (not just the first) and thrown
 * as one `CONFIG_INVALID` error whose `details.problems` locate each one.
 */
export async function loadMeshConfig(file: string): Promise<LoadedMeshConfig> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (cause) {
    throw new OpenLegionError('CONFIG_NOT_FOUND', `cannot read ${file}: ${(cause as Error).message}`, {
      cause,
    });
  }
  const config = parseMeshConfig(text, file);
  const dir = path.dirname(absolute);
  const resolvePath = (relative: string) => path.resolve(dir, relative);
  return { config, file: absolute, dataDir: resolvePath(config.mesh.data_dir), resolvePath };
}

/** Parse and validate mesh.yaml text; `file` is only used in messages. */
export function parseMeshConfig(text: string, file = 'mesh.yaml'): MeshConfig {
  const source = YamlSource.parse(text, file);
  const syntaxProblems = source.syntaxProblems();
  if (syntaxProblems.length > 0) throw configError(file, syntaxProblems);

  const result = meshConfigSchema.safeParse(source.toJS());
  if (!result.success) throw configError(file, source.zodProblems(result.error));
  const problems = [...scheduleProblems(result.data), ...templateSubscriptionProblems(result.data)].map(
    ({ field, message }) => source.problem(field, message),
  );
  if (problems.length > 0) throw configError(file, problems);
  // Frozen once validated: no module can change the config others have read (temporary agents
  // join `agents` through temporary-agents.ts alone).
  return freezeMeshConfig(result.data);
}

/** Cron schedules zod cannot judge (it has no cron parser): each bad one with its field path. */
function scheduleProblems(config: MeshConfig): { field: (string | number)[]; message: string }[] {
  return Object.entries(config.agents).flatMap(([agent, agentConfig]) =>
    agentConfig.cron.flatMap((entry, index) => {
      try {
        parseSchedule(entry.schedule, entry.timezone);
        return [];
      } catch (error) {
        return [{ field: ['agents', agent, 'cron', index, 'schedule'], message: (error as Error).message }];
      }
    }),
  );
}

function configError(file: string, problems: ConfigProblem[]): OpenLegionError {
  return new OpenLegionError('CONFIG_INVALID', problemsMessage(file, problems), { details: { problems } });
}
