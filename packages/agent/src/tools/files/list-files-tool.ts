import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { AgentTool } from '@openlegion/protocol';
import picomatch from 'picomatch';
import { z } from 'zod';
import { guardTool, ToolFailure } from '../tool-failure.js';
import { kindOf, SKIPPED_FOLDERS, walkWorkspace } from './walk-workspace.js';
import { resolveWorkspacePath } from './workspace-path.js';

const listFilesInput = z.object({
  path: z.string().default('.').describe('Folder relative to your workspace; default the workspace itself'),
  pattern: z
    .string()
    .optional()
    .describe('Glob matched against paths below the folder, e.g. "**/*.md"; without it, one level is listed'),
  limit: z.number().int().min(1).max(1_000).default(200).describe('Most entries to return'),
});

/** `list_files`: one folder's entries, or every path below it matching a glob. */
export function createListFilesTool(): AgentTool<z.infer<typeof listFilesInput>> {
  return {
    name: 'list_files',
    group: 'files',
    description:
      'List files in your workspace: one folder, or with pattern (a glob like "**/*.ts") every matching path below it.',
    input: listFilesInput,
    run: (input, context) =>
      guardTool(async () => {
        const folder = await resolveWorkspacePath(context.workspace, input.path);
        if (!folder.exists) throw new ToolFailure(`${folder.relative} does not exist`);
        if (!(await stat(folder.absolute)).isDirectory())
          throw new ToolFailure(`${folder.relative} is a file; use read_file`);
        const lines: string[] = [];
        let more = 0;
        const add = (line: string) => (lines.length < input.limit ? lines.push(line) : more++);
        if (input.pattern === undefined) {
          const entries = await readdir(folder.absolute, { withFileTypes: true });
          entries.sort((a, b) => (a.name < b.name ? -1 : 1));
          for (const entry of entries) add(await describeEntry(folder.absolute, entry.name, kindOf(entry)));
        } else {
          const matches = picomatch(input.pattern, { dot: true });
          for await (const entry of walkWorkspace(folder.absolute, context.signal))
            if (matches(entry.relative))
              add(await describeEntry(folder.absolute, entry.relative, entry.kind));
        }
        const where = folder.relative === '.' ? 'your workspace' : folder.relative;
        if (lines.length === 0)
          return input.pattern ? `nothing in ${where} matches ${input.pattern}` : `${where} is empty`;
        const skipped = `${[...SKIPPED_FOLDERS].join(' and ')} are not searched`;
        const footer = more > 0 ? `\n[${more} more not shown; narrow the pattern or raise limit]` : '';
        return `${where}${input.pattern ? ` matching ${input.pattern} (${skipped})` : ''}:\n${lines.join('\n')}${footer}`;
      }),
  };
}

async function describeEntry(folder: string, relative: string, kind: string): Promise<string> {
  if (kind === 'directory') return `${relative}/`;
  if (kind === 'symlink') return `${relative} (symlink)`;
  try {
    return `${relative} (${formatSize((await stat(path.join(folder, relative))).size)})`;
  } catch {
    return relative;
  }
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
