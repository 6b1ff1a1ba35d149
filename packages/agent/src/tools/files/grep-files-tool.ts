import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { AgentTool } from '@openlegion/protocol';
import { stripInvisible } from '@openlegion/protocol';
import picomatch from 'picomatch';
import { z } from 'zod';
import { guardTool, ToolFailure } from '../tool-failure.js';
import { type WalkEntry, walkWorkspace } from './walk-workspace.js';
import { resolveWorkspacePath } from './workspace-path.js';

/** Files larger than this are skipped (bytes): logs and dumps belong to run_command. */
const GREP_MAX_FILE_BYTES = 2 * 1024 * 1024;
/** A matching line is shown up to this many characters. */
const GREP_LINE_CHARS = 300;
/** Only this much of a line is searched, so a pathological pattern cannot stall the agent for long. */
const GREP_SEARCHED_LINE_CHARS = 10_000;

const grepFilesInput = z.object({
  pattern: z.string().min(1).describe('JavaScript regular expression, e.g. "TODO|FIXME" or "function \\w+"'),
  path: z.string().default('.').describe('File or folder to search, relative to your workspace'),
  glob: z
    .string()
    .optional()
    .describe('Only files whose path below the folder matches this glob, e.g. "**/*.md"'),
  ignore_case: z.boolean().default(false).describe('Match letters of either case'),
  limit: z.number().int().min(1).max(500).default(100).describe('Most matching lines to return'),
});

/** `grep_files`: lines matching a regular expression across the workspace. */
export function createGrepFilesTool(): AgentTool<z.infer<typeof grepFilesInput>> {
  return {
    name: 'grep_files',
    group: 'files',
    description:
      'Search file contents in your workspace with a regular expression; returns path:line: text for each match.',
    input: grepFilesInput,
    run: (input, context) =>
      guardTool(async () => {
        let regex: RegExp;
        try {
          regex = new RegExp(input.pattern, input.ignore_case ? 'i' : '');
        } catch (error) {
          throw new ToolFailure(`pattern is not a valid regular expression: ${(error as Error).message}`);
        }
        const target = await resolveWorkspacePath(context.workspace, input.path);
        if (!target.exists) throw new ToolFailure(`${target.relative} does not exist`);
        const isFolder = (await stat(target.absolute)).isDirectory();
        const files = isFolder
          ? walkFiles(target.absolute, input.glob, context.signal)
          : single(target.absolute, path.basename(target.absolute));
        const hits: string[] = [];
        let filesSearched = 0;
        let filesSkipped = 0;
        let more = false;
        for await (const file of files) {
          const text = await readSearchable(file.absolute);
          if (text === undefined) {
            filesSkipped++;
            continue;
          }
          filesSearched++;
          const shown = isFolder
            ? target.relative === '.'
              ? file.relative
              : `${target.relative}/${file.relative}`
            : target.relative;
          const lines = text.split('\n');
          for (let index = 0; index < lines.length && !more; index++) {
            const line = lines[index] ?? '';
            if (!regex.test(line.slice(0, GREP_SEARCHED_LINE_CHARS))) continue;
            if (hits.length === input.limit) more = true;
            else hits.push(`${shown}:${index + 1}: ${stripInvisible(line.trim()).slice(0, GREP_LINE_CHARS)}`);
          }
          if (more) break;
        }
        const skipped = filesSkipped
          ? `; ${filesSkipped} binary or over-${GREP_MAX_FILE_BYTES / 1024 / 1024}-MB files skipped`
          : '';
        if (hits.length === 0) return `no match for /${input.pattern}/ in ${filesSearched} files${skipped}`;
        const footer = more ? `\n[stopped at ${input.limit} matches; narrow the pattern, path or glob]` : '';
        return `${hits.length} matches in ${filesSearched} files searched${skipped}:\n${hits.join('\n')}${footer}`;
      }),
  };
}

async function* walkFiles(
  folder: string,
  glob: string | undefined,
  signal: AbortSignal,
): AsyncGenerator<WalkEntry> {
  const matches = glob ? picomatch(glob, { dot: true }) : () => true;
  for await (const entry of walkWorkspace(folder, signal))
    if (entry.kind === 'file' && matches(entry.relative)) yield entry;
}

async function* single(absolute: string, relative: string): AsyncGenerator<WalkEntry> {
  yield { absolute, relative, kind: 'file' };
}

/** The file's text, or undefined when it is too large or binary. */
async function readSearchable(file: string): Promise<string | undefined> {
  const info = await stat(file);
  if (!info.isFile() || info.size > GREP_MAX_FILE_BYTES) return undefined;
  const buffer = await readFile(file);
  if (buffer.subarray(0, 8_192).includes(0)) return undefined;
  return buffer.toString('utf8');
}
