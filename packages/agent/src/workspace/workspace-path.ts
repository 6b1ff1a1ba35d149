import { lstat, mkdir, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { OpenLegionError } from '@openlegion/protocol';

/** True when `inner` is `root` or lies under it (both already real paths). */
function isInside(root: string, inner: string): boolean {
  const rel = relative(root, inner);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function refuse(file: string, why: string): never {
  throw new OpenLegionError('AGENT_WORKSPACE_PATH_INVALID', `file "${file}": ${why}`, {
    details: { field: 'file' },
  });
}

/**
 * The absolute path of `file` inside the workspace, or a refusal. Relative paths only, no `..`
 * segment, and no symlink anywhere on the way that leads out of the workspace: the real path of
 * the file (or, for a file not yet there, of its nearest existing parent) must lie inside.
 *
 * @throws {OpenLegionError} `AGENT_WORKSPACE_PATH_INVALID` naming the file and the reason.
 */
export async function resolveWorkspacePath(workspace: string, file: string): Promise<string> {
  if (file === '' || file.includes('\0')) refuse(file, 'give a relative path inside the workspace');
  if (isAbsolute(file) || file.startsWith('~')) refuse(file, 'absolute paths are not allowed');
  const segments = file.split(/[\\/]+/);
  if (segments.includes('..')) refuse(file, '".." is not allowed');
  const root = await realpath(workspace);
  const target = join(root, ...segments.filter((segment) => segment !== '' && segment !== '.'));
  if (target === root) refuse(file, 'name a file, not the workspace itself');
  let existing = target;
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch {
      existing = dirname(existing);
    }
  }
  if (!isInside(root, await realpath(existing))) refuse(file, 'it leads outside the workspace');
  return target;
}

/** Create the parent folders of a resolved workspace path (already confined). */
export async function ensureParentDir(target: string): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
}
