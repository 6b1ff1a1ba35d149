import { isOpenLegionError } from '@openlegion/protocol';

/** Where the CLI writes; injectable so commands are testable without a terminal. */
export interface CliOutput {
  out: (text: string) => void;
  err: (text: string) => void;
}

export const processOutput: CliOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** Print an error the way every command does: one `openlegion: ` line plus detail lines. */
export function printError(output: CliOutput, error: unknown): void {
  if (isOpenLegionError(error)) {
    output.err(`openlegion: ${error.message}\n`);
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  output.err(`openlegion: unexpected error: ${message}\n`);
  if (process.env.OPENLEGION_DEBUG && error instanceof Error && error.stack) output.err(`${error.stack}\n`);
}
