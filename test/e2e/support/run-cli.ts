import { spawn } from 'node:child_process';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
const BIN = path.join(REPO_ROOT, 'packages/cli/bundle/bin.mjs');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout as it arrived: each chunk with the ms since spawn. */
  chunks: Array<{ at: number; text: string }>;
}

/** Run the built `openlegion` CLI as a user would, collecting its output as it streams. */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string } = {},
): Promise<CliRun> {
  const began = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin?.end(options.input);
  const run: CliRun = { code: -1, stdout: '', stderr: '', chunks: [] };
  child.stdout.on('data', (chunk: Buffer) => {
    run.stdout += chunk.toString();
    run.chunks.push({ at: Date.now() - began, text: chunk.toString() });
  });
  child.stderr.on('data', (chunk: Buffer) => {
    run.stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      run.code = code ?? -1;
      resolve(run);
    });
  });
}
