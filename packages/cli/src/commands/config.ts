import { type ConfigProblem, formatConfigProblem, loadMeshConfig } from '@openlegion/host/config';
import { isOpenLegionError, meshConfigJsonSchema } from '@openlegion/protocol';
import type { CliOutput } from '../cli-output.js';

/** `openlegion config validate [file]`: every problem as `file:line:col field: message`. */
export async function validateConfig(file: string, output: CliOutput): Promise<number> {
  try {
    const { config } = await loadMeshConfig(file);
    const agents = Object.keys(config.agents);
    output.out(`${file}: ok (mesh ${config.mesh.name}, ${agents.length} agents: ${agents.join(', ')})\n`);
    return 0;
  } catch (error) {
    const problems = configProblems(error);
    if (!problems) throw error;
    for (const problem of problems) output.err(`${formatConfigProblem(problem)}\n`);
    output.err(`${file}: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}\n`);
    return 1;
  }
}

export function printConfigSchema(output: CliOutput): number {
  output.out(`${JSON.stringify(meshConfigJsonSchema(), null, 2)}\n`);
  return 0;
}

/** The located problems of a CONFIG_INVALID error, or undefined for any other error. */
export function configProblems(error: unknown): ConfigProblem[] | undefined {
  if (!isOpenLegionError(error) || error.code !== 'CONFIG_INVALID') return undefined;
  return (error.details as { problems: ConfigProblem[] }).problems;
}
