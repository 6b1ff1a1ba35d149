import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** Folders a recursive walk does not enter: they are large and rarely what the model looks for. */
export const SKIPPED_FOLDERS = new Set(['.git', 'node_modules']);

/** One entry a walk found; `relative` is relative to the folder walked, with `/` separators. */
export interface WalkEntry {
  relative: string;
  absolute: string;
  kind: 'file' | 'directory' | 'symlink' | 'other';
}

/**
 * Every entry under `folder`, depth first in name order. Symbolic links are reported but never
 * followed, so a walk cannot leave the workspace; {@link SKIPPED_FOLDERS} are not entered.
 */
export async function* walkWorkspace(folder: string, signal?: AbortSignal): AsyncGenerator<WalkEntry> {
  const pending: string[] = [''];
  while (pending.length > 0) {
    signal?.throwIfAborted();
    const relativeDir = pending.pop() ?? '';
    let entries: Dirent[];
    try {
      entries = await readdir(path.join(folder, relativeDir), { withFileTypes: true });
    } catch {
      continue; // removed or unreadable since it was listed: nothing to report under it
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subfolders: string[] = [];
    for (const entry of entries) {
      const relative = relativeDir ? `${relativeDir}/${entry.name}` : entry.name;
      const kind = kindOf(entry);
      yield { relative, absolute: path.join(folder, relative), kind };
      if (kind === 'directory' && !SKIPPED_FOLDERS.has(entry.name)) subfolders.push(relative);
    }
    pending.push(...subfolders.reverse());
  }
}

export function kindOf(entry: Dirent): WalkEntry['kind'] {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isDirectory()) return 'directory';
  return entry.isFile() ? 'file' : 'other';
}
