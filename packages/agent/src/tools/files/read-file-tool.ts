import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { AgentTool } from '@openlegion/protocol';
import { stripInvisible } from '@openlegion/protocol';
import { z } from 'zod';
import { guardTool, ToolFailure } from '../tool-failure.js';
import { resolveWorkspacePath } from './workspace-path.js';

/** Most characters one read returns; the note says where to go on. */
export const READ_FILE_MAX_CHARS = 50_000;
const DEFAULT_LINES = 2_000;
const BINARY_SNIFF_BYTES = 8_192;

const readFileInput = z.object({
  path: z.string().describe('File path relative to your workspace, e.g. notes/plan.md'),
  offset: z.number().int().min(1).default(1).describe('First line to read (1-based); default 1'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(20_000)
    .default(DEFAULT_LINES)
    .describe(`How many lines to read; default ${DEFAULT_LINES}`),
});

/** `read_file`: lines of a workspace file, with an honest note when the read was cut short. */
export function createReadFileTool(): AgentTool<z.infer<typeof readFileInput>> {
  return {
    name: 'read_file',
    group: 'files',
    description:
      'Read a text file in your workspace. Long files come in pieces: use offset/limit (lines) to read on.',
    input: readFileInput,
    run: (input, context) =>
      guardTool(async () => {
        const target = await resolveWorkspacePath(context.workspace, input.path);
        if (!target.exists)
          throw new ToolFailure(`${target.relative} does not exist; list_files shows what does`);
        const info = await stat(target.absolute);
        if (info.isDirectory()) throw new ToolFailure(`${target.relative} is a directory; use list_files`);
        if (await looksBinary(target.absolute))
          throw new ToolFailure(
            `${target.relative} is a binary file (${info.size} bytes); it cannot be read as text`,
          );
        const read = await readLines(target.absolute, input.offset, input.limit, context.signal);
        return describeRead(target.relative, input.offset, read);
      }),
  };
}

interface LinesRead {
  lines: string[];
  totalLines: number;
  /** The character cap stopped the read (the last line may be partial). */
  capped: boolean;
}

async function readLines(
  file: string,
  offset: number,
  limit: number,
  signal: AbortSignal,
): Promise<LinesRead> {
  const stream = createReadStream(file, { encoding: 'utf8', signal });
  const reader = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  const lines: string[] = [];
  let totalLines = 0;
  let chars = 0;
  let capped = false;
  for await (const line of reader) {
    totalLines++;
    if (totalLines < offset || lines.length >= limit || capped) continue;
    const room = READ_FILE_MAX_CHARS - chars;
    if (line.length + 1 > room) {
      capped = true;
      if (lines.length === 0) lines.push(line.slice(0, room));
      continue;
    }
    lines.push(line);
    chars += line.length + 1;
  }
  return { lines, totalLines, capped };
}

function describeRead(relative: string, offset: number, read: LinesRead): string {
  const { lines, totalLines } = read;
  if (totalLines === 0) return `${relative} is empty.`;
  if (lines.length === 0) return `${relative} has ${totalLines} lines; offset ${offset} is past the end.`;
  const last = offset + lines.length - 1;
  const clean = stripInvisible(lines.join('\n'));
  const removed = lines.join('\n').length - clean.length;
  const header = `${relative} (lines ${offset}-${last} of ${totalLines})`;
  const notes: string[] = [];
  if (removed > 0)
    notes.push(`${removed} invisible control/format characters were removed from what you see`);
  if (read.capped)
    notes.push(
      lines.length === 1
        ? `line ${offset} is longer than ${READ_FILE_MAX_CHARS} characters and was cut; run_command (e.g. cut -c) shows the rest`
        : `cut at ${READ_FILE_MAX_CHARS} characters; continue with offset=${last + 1}`,
    );
  else if (last < totalLines) notes.push(`${totalLines - last} more lines; continue with offset=${last + 1}`);
  return `${header}\n${clean}${notes.length ? `\n[${notes.join('; ')}]` : ''}`;
}

async function looksBinary(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(BINARY_SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, BINARY_SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}
