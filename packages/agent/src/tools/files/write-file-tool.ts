import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { AgentTool } from '@openlegion/protocol';
import { z } from 'zod';
import { replaceContent } from '../../workspace/workspace-path.js';
import { guardTool, ToolFailure } from '../tool-failure.js';
import { assertWritable, openForWrite, resolveWorkspacePath } from './workspace-path.js';

/** Largest content one write takes (characters). */
export const WRITE_FILE_MAX_CHARS = 2_000_000;

const writeFileInput = z.object({
  path: z.string().describe('File path relative to your workspace; missing folders are created'),
  content: z.string().max(WRITE_FILE_MAX_CHARS).describe('The full text to write'),
  append: z.boolean().default(false).describe('Add to the end of the file instead of replacing it'),
});

/** `write_file`: create or replace (or append to) a workspace file. */
export function createWriteFileTool(): AgentTool<z.infer<typeof writeFileInput>> {
  return {
    name: 'write_file',
    group: 'files',
    description:
      'Create a file in your workspace or replace its whole content (or append). For a small change to an existing file use edit_file.',
    input: writeFileInput,
    run: (input, context) =>
      guardTool(async () => {
        const target = await resolveWorkspacePath(context.workspace, input.path);
        assertWritable(target);
        if (target.relative === '.') throw new ToolFailure('path names your workspace folder, not a file');
        if (target.exists && (await stat(target.absolute)).isDirectory())
          throw new ToolFailure(`${target.relative} is a directory; give a file path`);
        await mkdir(path.dirname(target.absolute), { recursive: true });
        const handle = await openForWrite(target, { append: input.append });
        try {
          context.signal.throwIfAborted();
          if (input.append) await handle.appendFile(input.content);
          else await replaceContent(handle, input.content);
        } finally {
          await handle.close();
        }
        const bytes = Buffer.byteLength(input.content);
        const verb = input.append ? 'appended' : target.exists ? 'replaced' : 'created';
        return `${verb} ${target.relative} (${bytes} bytes${input.append ? ' added' : ''})`;
      }),
  };
}
