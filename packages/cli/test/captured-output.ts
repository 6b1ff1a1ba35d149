import type { CliOutput } from '../src/cli-output.js';

/** A CliOutput that keeps what the CLI printed, for tests. */
export function capture(): CliOutput & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
    stdout: () => out,
    stderr: () => err,
  };
}
