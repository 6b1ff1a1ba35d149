import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ToolFailure } from '../tool-failure.js';

/** A path the model gave, checked to stay inside the workspace after every symlink is followed. */
export interface WorkspacePath {
  /** The real absolute path (symlinks resolved as far as the path exists). */
  absolute: string;
  /** The same, relative to the workspace (`.` for the workspace itself), with `/` separators. */
  relative: string;
  /** Whether something exists at the path. */
  exists: boolean;
}

/** Files the agent reads but never writes: its instructions and its persona belong to the user. */
const READ_ONLY_FILES = ['AGENTS.md', 'SOUL.md'];

/**
 * Resolve `requested` inside `workspace`. Absolute paths, `..` segments and paths that leave the
 * workspace through a symlink are refused with a {@link ToolFailure}: the check is made on the real
 * path, so a link inside the workspace that points outside it is caught too.
 */
export async function resolveWorkspacePath(workspace: string, requested: string): Promise<WorkspacePath> {
  const given = requested.trim() === '' ? '.' : requested.trim();
  if (given.includes('\0')) throw new ToolFailure(`path "${printable(given)}" contains a NUL character`);
  if (path.isAbsolute(given) || /^[A-Za-z]:[\\/]/.test(given) || given.startsWith('~'))
    throw new ToolFailure(
      `path "${given}" is absolute; give a path relative to your workspace, e.g. notes/todo.md`,
    );
  if (given.split(/[\\/]+/).includes('..'))
    throw new ToolFailure(`path "${given}" contains "..": only paths inside your workspace are allowed`);
  const root = await realpath(workspace);
  const { real, exists } = await realPathOf(path.resolve(root, given));
  if (real !== root && !real.startsWith(root + path.sep))
    throw new ToolFailure(`path "${given}" leads outside your workspace through a symbolic link`);
  return { absolute: real, relative: toRelative(root, real), exists };
}

/** Refuse writes to the files the user owns (see {@link READ_ONLY_FILES}), whatever path reaches them. */
export function assertWritable(target: WorkspacePath): void {
  const name = READ_ONLY_FILES.find((file) => file.toLowerCase() === target.relative.toLowerCase());
  if (name)
    throw new ToolFailure(
      `${name} is read-only for you: it holds instructions the user writes. Ask the user to change it.`,
    );
}

/**
 * The real path of `absolute`, or of its deepest existing ancestor joined with the rest. A dangling
 * symlink is followed to where it points, so a write through it cannot create a file outside.
 */
async function realPathOf(absolute: string): Promise<{ real: string; exists: boolean }> {
  const missing: string[] = [];
  let current = absolute;
  for (let links = 0; ; ) {
    try {
      const real = await realpath(current);
      return { real: path.join(real, ...missing.reverse()), exists: missing.length === 0 };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const target = await danglingLinkTarget(current);
      if (target !== undefined) {
        if (++links > MAX_LINKS) throw new ToolFailure('too many symbolic links in the path');
        current = path.resolve(path.dirname(current), target);
        continue;
      }
      const parent = path.dirname(current);
      if (parent === current) throw error;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

const MAX_LINKS = 40;

async function danglingLinkTarget(file: string): Promise<string | undefined> {
  try {
    return (await lstat(file)).isSymbolicLink() ? await readlink(file) : undefined;
  } catch {
    return undefined;
  }
}

function toRelative(root: string, real: string): string {
  const relative = path.relative(root, real);
  return relative === '' ? '.' : relative.split(path.sep).join('/');
}

function printable(text: string): string {
  return text.replace(/\0/g, '\\0');
}
