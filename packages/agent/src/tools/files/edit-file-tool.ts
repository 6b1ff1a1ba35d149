import { type FileHandle, stat } from 'node:fs/promises';
import type { AgentTool } from '@openlegion/protocol';
import { z } from 'zod';
import { replaceContent } from '../../workspace/workspace-path.js';
import { guardTool, ToolFailure } from '../tool-failure.js';
import { assertWritable, openForWrite, resolveWorkspacePath } from './workspace-path.js';

/** Files larger than this are not edited in memory (bytes). */
const EDIT_MAX_BYTES = 5 * 1024 * 1024;
const MAX_LISTED_LINES = 10;

const editFileInput = z.object({
  path: z.string().describe('File path relative to your workspace'),
  old_string: z
    .string()
    .min(1)
    .describe('The exact text to replace, whitespace included; enough context to occur once'),
  new_string: z.string().describe('The text to put in its place'),
  replace_all: z.boolean().default(false).describe('Replace every occurrence instead of exactly one'),
});

/** `edit_file`: replace one exact, unique piece of text in a workspace file. */
export function createEditFileTool(): AgentTool<z.infer<typeof editFileInput>> {
  return {
    name: 'edit_file',
    group: 'files',
    description:
      'Change part of a file: replace old_string (exact text that occurs once) with new_string. Read the file first.',
    input: editFileInput,
    run: (input, context) =>
      guardTool(async () => {
        const target = await resolveWorkspacePath(context.workspace, input.path);
        assertWritable(target);
        if (!target.exists)
          throw new ToolFailure(`${target.relative} does not exist; use write_file to create it`);
        const info = await stat(target.absolute);
        if (info.isDirectory()) throw new ToolFailure(`${target.relative} is a directory`);
        if (info.size > EDIT_MAX_BYTES)
          throw new ToolFailure(
            `${target.relative} is ${info.size} bytes, over the ${EDIT_MAX_BYTES}-byte edit limit`,
          );
        const handle = await openForWrite(target, { create: false });
        try {
          return await editOpenFile(handle, target.relative, input, context.signal);
        } finally {
          await handle.close();
        }
      }),
  };
}

/** Replace `old_string` in the open file's text; the message says what changed where. */
async function editOpenFile(
  handle: FileHandle,
  relative: string,
  input: z.infer<typeof editFileInput>,
  signal: AbortSignal,
): Promise<string> {
  const text = await handle.readFile({ encoding: 'utf8', signal });
  const positions = occurrences(text, input.old_string);
  if (positions.length === 0)
    throw new ToolFailure(
      `old_string was not found in ${relative}. Read the file again and copy the text exactly, whitespace and line breaks included.`,
    );
  if (positions.length > 1 && !input.replace_all)
    throw new ToolFailure(
      `old_string occurs ${positions.length} times in ${relative} (lines ${lineList(text, positions)}); add surrounding text so it occurs once, or set replace_all`,
    );
  if (input.old_string === input.new_string) throw new ToolFailure('old_string and new_string are the same');
  const edited = input.replace_all
    ? text.split(input.old_string).join(input.new_string)
    : text.slice(0, positions[0]) +
      input.new_string +
      text.slice((positions[0] ?? 0) + input.old_string.length);
  signal.throwIfAborted();
  await replaceContent(handle, edited);
  const where = `line ${lineAt(text, positions[0] ?? 0)}`;
  return positions.length === 1
    ? `edited ${relative} (1 replacement at ${where})`
    : `edited ${relative} (${positions.length} replacements, first at ${where})`;
}

/** Start offsets of every non-overlapping occurrence of `needle`. */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length))
    found.push(at);
  return found;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1))
    line++;
  return line;
}

function lineList(text: string, positions: number[]): string {
  const lines = positions.slice(0, MAX_LISTED_LINES).map((offset) => lineAt(text, offset));
  return lines.join(', ') + (positions.length > MAX_LISTED_LINES ? ', ...' : '');
}
