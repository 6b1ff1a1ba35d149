import type { FileHandle } from 'node:fs/promises';
import {
  openSingleLink,
  resolveInWorkspace,
  type WorkspacePath,
  type WorkspaceRefusal,
} from '../../workspace/workspace-path.js';
import { ToolFailure } from '../tool-failure.js';

export type { WorkspacePath } from '../../workspace/workspace-path.js';

/** Files the agent reads but never writes: its instructions and its persona belong to the user. */
const READ_ONLY_FILES = ['AGENTS.md', 'SOUL.md'];

const toolRefusal: WorkspaceRefusal = (message) => new ToolFailure(message);

/**
 * Resolve `requested` inside `workspace` (surrounding blanks ignored). Absolute paths, `..`
 * segments and paths that leave the workspace through a symlink are refused with a
 * {@link ToolFailure}: the check is made on the real path, so a link inside the workspace that
 * points outside it is caught too.
 */
export function resolveWorkspacePath(workspace: string, requested: string): Promise<WorkspacePath> {
  return resolveInWorkspace(workspace, requested.trim(), toolRefusal);
}

/**
 * Refuse writes to AGENTS.md and SOUL.md, whatever path reaches them. The prompt reads the
 * operator's copies from the host, not these; refusing still tells the model plainly that its
 * instructions are not its to change.
 */
export function assertWritable(target: WorkspacePath): void {
  const name = READ_ONLY_FILES.find((file) => file.toLowerCase() === target.relative.toLowerCase());
  if (name)
    throw new ToolFailure(
      `${name} is read-only for you: it holds instructions the user writes. Ask the user to change it.`,
    );
}

/**
 * Open a resolved file for a write, refusing one with more than one name (a hard link) with a
 * {@link ToolFailure}. Every file tool that writes goes through here.
 */
export function openForWrite(
  target: WorkspacePath,
  options: { append?: boolean; create?: boolean } = {},
): Promise<FileHandle> {
  return openSingleLink(target, options, toolRefusal);
}
