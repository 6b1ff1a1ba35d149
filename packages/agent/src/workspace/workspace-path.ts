import { constants } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { OpenLegionError } from '@openlegion/protocol';

/** A path checked to stay inside the workspace after every symlink is followed. */
export interface WorkspacePath {
  /** The real absolute path (symlinks resolved as far as the path exists). */
  absolute: string;
  /** The same, relative to the workspace (`.` for the workspace itself), with `/` separators. */
  relative: string;
  /** Whether something exists at the path. */
  exists: boolean;
}

/** Builds the error a caller's user reads (a tool failure for the model, an error body for the operator). */
export type WorkspaceRefusal = (message: string) => Error;

const MAX_LINKS = 40;

/**
 * Resolve `requested` inside `workspace`: the one resolver of the file tools and the workspace
 * routes. Absolute paths, `..` segments and paths that leave the workspace through a symlink are
 * refused with `refuse(message)`; the check is made on the real path, and a dangling symlink is
 * followed to where it points, so neither a link to an outside file nor one to an outside name
 * that does not exist yet lets a write out.
 */
export async function resolveInWorkspace(
  workspace: string,
  requested: string,
  refuse: WorkspaceRefusal,
): Promise<WorkspacePath> {
  const given = requested === '' ? '.' : requested;
  if (given.includes('\0')) throw refuse(`path "${given.replace(/\0/g, '\\0')}" contains a NUL character`);
  if (path.isAbsolute(given) || /^[A-Za-z]:[\\/]/.test(given) || given.startsWith('~'))
    throw refuse(`path "${given}" is absolute; give a path relative to your workspace, e.g. notes/todo.md`);
  if (given.split(/[\\/]+/).includes('..'))
    throw refuse(`path "${given}" contains "..": only paths inside your workspace are allowed`);
  const root = await realpath(workspace);
  const { real, exists } = await realPathOf(path.resolve(root, given), refuse);
  if (real !== root && !real.startsWith(root + path.sep))
    throw refuse(`path "${given}" leads outside your workspace through a symbolic link`);
  return { absolute: real, relative: toRelative(root, real), exists };
}

/**
 * Open a resolved workspace file for writing (created when missing, never truncated here) and
 * refuse it when it has more than one name. A hard link shares the file's content under another
 * name (possibly one the agent may not write, made with `ln` by a command), so writing through it
 * would change that file too. The count is read from the open descriptor, so a link swapped in
 * after the check cannot be written through; the last component is opened without following a
 * symlink, so one planted after the path was resolved is refused too.
 */
export async function openSingleLink(
  target: WorkspacePath,
  options: { append?: boolean; create?: boolean },
  refuse: WorkspaceRefusal,
): Promise<FileHandle> {
  const flags =
    constants.O_RDWR |
    constants.O_NOFOLLOW |
    (options.create === false ? 0 : constants.O_CREAT) |
    (options.append ? constants.O_APPEND : 0);
  let handle: FileHandle;
  try {
    handle = await open(target.absolute, flags, 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw refuse(`${target.relative} became a symbolic link while it was written; write it again`);
    throw error;
  }
  const info = await handle.stat();
  if (!info.isFile() || info.nlink > 1) {
    await handle.close();
    throw refuse(
      info.isFile()
        ? hardLinkMessage(target.relative, info.nlink)
        : `${target.relative} is not a regular file`,
    );
  }
  return handle;
}

/** Refuse an existing file with more than one name (see {@link openSingleLink}); for a rename over it. */
export async function assertSingleLink(target: WorkspacePath, refuse: WorkspaceRefusal): Promise<void> {
  const info = await lstat(target.absolute).catch(() => undefined);
  if (info?.isFile() && info.nlink > 1) throw refuse(hardLinkMessage(target.relative, info.nlink));
}

function hardLinkMessage(relative: string, nlink: number): string {
  return (
    `${relative} has ${nlink} hard links: another name shares its content, and writing it would change ` +
    'that file too, so it is refused. Write a new file instead.'
  );
}

/** Replace the whole content of an open file. */
export async function replaceContent(handle: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text);
  await handle.truncate(0);
  for (let written = 0; written < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, written);
    written += bytesWritten;
  }
}

/** Create the parent folders of a resolved workspace path (already confined). */
export async function ensureParentDir(target: string): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
}

/**
 * The real path of `absolute`, or of its deepest existing ancestor joined with the rest. A dangling
 * symlink is followed to where it points, so a write through it cannot create a file outside.
 */
async function realPathOf(
  absolute: string,
  refuse: WorkspaceRefusal,
): Promise<{ real: string; exists: boolean }> {
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
        if (++links > MAX_LINKS) throw refuse('too many symbolic links in the path');
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

/** A refusal the workspace routes answer: 400 AGENT_WORKSPACE_PATH_INVALID naming the file. */
export function routeRefusal(file: string): WorkspaceRefusal {
  return (message) =>
    new OpenLegionError('AGENT_WORKSPACE_PATH_INVALID', `file "${file}": ${message}`, {
      details: { field: 'file' },
    });
}

/**
 * The workspace file the operator's route names: {@link resolveInWorkspace}, and a file, not the
 * workspace itself.
 *
 * @throws {OpenLegionError} `AGENT_WORKSPACE_PATH_INVALID` naming the file and the reason.
 */
export async function resolveWorkspaceFile(workspace: string, file: string): Promise<WorkspacePath> {
  const refuse = routeRefusal(file);
  if (file === '') throw refuse('give a relative path inside the workspace');
  const target = await resolveInWorkspace(workspace, file, refuse);
  if (target.relative === '.') throw refuse('name a file, not the workspace itself');
  return target;
}
