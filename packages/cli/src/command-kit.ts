import { Option } from 'commander';
import type { CliOutput } from './cli-output.js';

export const DEFAULT_CONFIG = 'mesh.yaml';

/** What every command group needs to register itself on the program. */
export interface CommandKit {
  output: CliOutput;
  /** Wrap an action: its resolved number is the exit code; a throw is printed, exit 1. */
  run: (action: () => Promise<number>) => () => Promise<void>;
  /** `-c, --config <file>` (default mesh.yaml). */
  configOption: () => Option;
}

export function configOption(): Option {
  return new Option('-c, --config <file>', 'mesh.yaml to use').default(DEFAULT_CONFIG);
}
