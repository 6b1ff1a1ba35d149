import type { AgentTool } from '@openlegion/protocol';
import { fenceUntrusted } from '@openlegion/protocol';
import { z } from 'zod';
import { guardTool } from '../tool-failure.js';
import { type ManagedProcess, PROCESS_OUTPUT_BYTES, type ProcessRegistry } from './process-registry.js';

/** Output returned by one process_output call unless asked for more (bytes, the newest). */
const DEFAULT_OUTPUT_BYTES = 16 * 1024;

const idField = z.string().min(1).describe('Process id from process_start, e.g. p1');

const startInput = z.object({
  command: z
    .string()
    .min(1)
    .describe('Shell command line (sh -c) to run in the background in your workspace'),
  max_runtime_s: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Kill it after this many seconds (default and maximum: the agent limit)'),
});
const idInput = z.object({ id: idField });
const outputInput = z.object({
  id: idField,
  since: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Byte cursor from the previous process_output ("next"), to get only newer output'),
  max_bytes: z
    .number()
    .int()
    .min(256)
    .max(PROCESS_OUTPUT_BYTES)
    .default(DEFAULT_OUTPUT_BYTES)
    .describe(`Most bytes to return, the newest kept; default ${DEFAULT_OUTPUT_BYTES}`),
});
const listInput = z.object({});

/**
 * `process_start`, `process_status`, `process_output`, `process_kill` and `process_list`: background
 * processes (servers, watchers, long builds) over one {@link ProcessRegistry}.
 */
export function createProcessTools(registry: ProcessRegistry): AgentTool[] {
  const start: AgentTool<z.infer<typeof startInput>> = {
    name: 'process_start',
    group: 'runtime',
    description: `Start a long-running command in the background (a server, a watcher, a long build) and get its id. At most 10 run at once; each is killed after ${registry.maxRuntimeS} s.`,
    input: startInput,
    run: (input, context) =>
      guardTool(async () => {
        const entry = registry.start(input.command, context.workspace, input.max_runtime_s);
        return `started ${entry.id} (pid ${entry.pid ?? 'unknown'}); read its output with process_output`;
      }),
  };
  const status: AgentTool<z.infer<typeof idInput>> = {
    name: 'process_status',
    group: 'runtime',
    description: 'Whether a background process is still running, its exit code and how much output it wrote.',
    input: idInput,
    run: (input) => guardTool(async () => describe(registry.get(input.id), registry.now())),
  };
  const output: AgentTool<z.infer<typeof outputInput>> = {
    name: 'process_output',
    group: 'runtime',
    description:
      'Read the newest output of a background process (64 KB kept). Pass since=<next> from the previous call to get only new output.',
    input: outputInput,
    run: (input) =>
      guardTool(async () => {
        const entry = registry.get(input.id);
        const read = entry.output.read(input.since);
        const bytes = Buffer.from(read.text);
        const skipped = Math.max(0, bytes.length - input.max_bytes);
        const text = skipped > 0 ? bytes.subarray(skipped).toString('utf8') : read.text;
        const dropped = [
          ...(read.dropped > 0 ? [`${read.dropped} earlier bytes were dropped from the 64 KB buffer`] : []),
          ...(skipped > 0 ? [`${skipped} earlier bytes not shown (raise max_bytes)`] : []),
        ]
          .map((note) => `; ${note}`)
          .join('');
        const state = entry.running ? 'running' : 'ended';
        const body = text ? fenceUntrusted(`process ${entry.id} output`, text.trimEnd()) : '(no new output)';
        return `${entry.id} ${state}; next=${read.next}${dropped}\n${body}`;
      }),
  };
  const kill: AgentTool<z.infer<typeof idInput>> = {
    name: 'process_kill',
    group: 'runtime',
    description: 'Stop a background process and everything it started (SIGTERM, then SIGKILL).',
    input: idInput,
    run: (input) => guardTool(async () => describe(await registry.kill(input.id), registry.now())),
  };
  const list: AgentTool<z.infer<typeof listInput>> = {
    name: 'process_list',
    group: 'runtime',
    description: 'List your background processes, running and recently ended.',
    input: listInput,
    run: () =>
      guardTool(async () => {
        const entries = registry.list();
        if (entries.length === 0) return 'no background processes';
        return entries.map((entry) => describe(entry, registry.now())).join('\n');
      }),
  };
  return [start, status, output, kill, list] as AgentTool[];
}

function describe(entry: ManagedProcess, now: number): string {
  const seconds = Math.round(((entry.endedAt ?? now) - entry.startedAt) / 1000);
  const state = entry.running
    ? `running for ${seconds} s`
    : `ended after ${seconds} s with ${entry.exitCode !== null ? `exit code ${entry.exitCode}` : `signal ${entry.signal}`}${entry.killedFor ? ` (killed: ${entry.killedFor})` : ''}`;
  return `${entry.id} ${state}, ${entry.output.totalBytes} bytes of output: ${entry.command.slice(0, 200)}`;
}
