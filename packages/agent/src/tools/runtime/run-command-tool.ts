import type { AgentTool } from '@openlegion/protocol';
import { fenceUntrusted } from '@openlegion/protocol';
import { z } from 'zod';
import { guardTool } from '../tool-failure.js';
import { OutputRingBuffer } from './output-ring-buffer.js';
import { commandEnvironment, killProcessTree, signalGroup, spawnShell } from './shell-process.js';

/** Output kept from the start of a command's output (bytes). */
const HEAD_BYTES = 10_000;
/** Output kept from the end (bytes): errors and summaries usually come last. */
const TAIL_BYTES = 20_000;
const DEFAULT_TIMEOUT_S = 60;
/** How long output may stay open after the command itself has exited. */
const LEFTOVER_GRACE_MS = 1_000;
export const RUN_COMMAND_MAX_TIMEOUT_S = 600;

const runCommandInput = z.object({
  command: z.string().min(1).describe('Shell command line (sh -c), run in your workspace'),
  timeout_s: z
    .number()
    .int()
    .min(1)
    .max(RUN_COMMAND_MAX_TIMEOUT_S)
    .default(DEFAULT_TIMEOUT_S)
    .describe(`Seconds before the command is killed; default ${DEFAULT_TIMEOUT_S}`),
});

export interface RunCommandOptions {
  /** Environment for commands; default the agent's own without MESH_TOKEN. */
  env?: NodeJS.ProcessEnv;
}

/** `run_command`: one shell command to completion, with a timeout and a capped output. */
export function createRunCommandTool(
  options: RunCommandOptions = {},
): AgentTool<z.infer<typeof runCommandInput>> {
  const env = options.env ?? commandEnvironment();
  return {
    name: 'run_command',
    group: 'runtime',
    description:
      'Run a shell command in your workspace and wait for it (stdout and stderr together, exit code). For servers or long jobs use process_start.',
    input: runCommandInput,
    run: (input, context) =>
      guardTool(async () => {
        const started = performance.now();
        const child = spawnShell(input.command, context.workspace, env);
        const head: Buffer[] = [];
        let headBytes = 0;
        const tail = new OutputRingBuffer(TAIL_BYTES);
        const collect = (chunk: Buffer) => {
          if (headBytes < HEAD_BYTES) {
            const part = chunk.subarray(0, HEAD_BYTES - headBytes);
            head.push(part);
            headBytes += part.length;
            chunk = chunk.subarray(part.length);
          }
          if (chunk.length > 0) tail.write(chunk);
        };
        child.stdout?.on('data', collect);
        child.stderr?.on('data', collect);
        let stopped: 'timeout' | 'abort' | undefined;
        const stop = (why: 'timeout' | 'abort') => {
          stopped ??= why;
          void killProcessTree(child);
        };
        const timer = setTimeout(() => stop('timeout'), input.timeout_s * 1000);
        const onAbort = () => stop('abort');
        context.signal.addEventListener('abort', onAbort, { once: true });
        if (context.signal.aborted) stop('abort');
        // A command that ends but leaves a background child holding its output open would keep
        // 'close' waiting until the timeout: after a short grace the leftovers are killed.
        let leftovers = false;
        let leftoverTimer: NodeJS.Timeout | undefined;
        child.once('exit', () => {
          leftoverTimer = setTimeout(() => {
            leftovers = true;
            signalGroup(child, 'SIGKILL');
            child.stdout?.destroy();
            child.stderr?.destroy();
          }, LEFTOVER_GRACE_MS);
        });
        const exit = await new Promise<{ code: number | null; signal: string | null; error?: Error }>(
          (resolve) => {
            child.once('error', (error) => resolve({ code: null, signal: null, error }));
            child.once('close', (code, signal) => resolve({ code, signal }));
          },
        );
        clearTimeout(timer);
        clearTimeout(leftoverTimer);
        context.signal.removeEventListener('abort', onAbort);
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        const output = joinOutput(Buffer.concat(head).toString('utf8'), tail);
        const status = exit.error
          ? `could not start: ${exit.error.message}`
          : stopped === 'timeout'
            ? `timed out after ${input.timeout_s} s and was killed; raise timeout_s or use process_start`
            : stopped === 'abort'
              ? 'cancelled: the turn was stopped and the command killed'
              : exit.code !== null
                ? `exit code ${exit.code}`
                : `killed by ${exit.signal}`;
        const note = leftovers
          ? '; processes it left in the background were killed (use process_start for those)'
          : '';
        const text = `${status} (${seconds} s${note})\n${output ? fenceUntrusted('run_command output', output.trimEnd()) : '(no output)'}`;
        return {
          content: [{ type: 'text', text }],
          ...(exit.code === 0 && !stopped ? {} : { isError: true }),
        };
      }),
  };
}

function joinOutput(head: string, tail: OutputRingBuffer): string {
  if (tail.totalBytes === 0) return head;
  const kept = tail.read();
  if (kept.dropped === 0) return head + kept.text;
  return `${head}\n[... ${kept.dropped} bytes of output omitted ...]\n${kept.text}`;
}
