import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { OpenLegionError } from '@openlegion/protocol';

/**
 * The absolute path of `relative` inside the workspace; anything that escapes it is
 * `BROWSER_PATH_INVALID`. With `mustExist`, the file has to be there (uploads).
 */
export async function workspacePath(
  workspace: string,
  relative: string,
  options: { mustExist?: boolean } = {},
): Promise<string> {
  const root = path.resolve(workspace);
  const full = path.resolve(root, relative);
  if (full !== root && !full.startsWith(root + path.sep)) {
    throw new OpenLegionError('BROWSER_PATH_INVALID', `${relative} is outside the workspace`, {
      details: { path: relative },
    });
  }
  if (options.mustExist) {
    const found = await stat(full).then(
      (info) => info.isFile(),
      () => false,
    );
    if (!found) {
      throw new OpenLegionError('BROWSER_PATH_INVALID', `${relative} is not a file in the workspace`, {
        details: { path: relative },
      });
    }
  } else {
    await mkdir(path.dirname(full), { recursive: true });
  }
  return full;
}

/** A timestamped default name, e.g. `screenshots/2026-01-02T10-11-12-345Z.png`. */
export function defaultFileName(folder: string, extension: string, now = new Date()): string {
  return `${folder}/${now.toISOString().replace(/[:.]/g, '-')}.${extension}`;
}
