import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** SKILL.md beyond this is refused: the body is read into the conversation whole. */
export const SKILL_MD_MAX_BYTES = 64 * 1024;
/** Files listed per skill; a skill with more is refused (it is not a skill, it is a project). */
export const SKILL_MAX_FILES = 200;
/** Folder depth walked inside a skill. */
const SKILL_MAX_DEPTH = 6;

/** What a skill folder holds, or why it was refused. */
export type SkillFolder = { ok: true; text: string; files: string[] } | { ok: false; reason: string };

/** True when `path` is `root` or inside it (both real paths). */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/**
 * Read a skill folder: SKILL.md (capped) and the relative paths of every file in it. A symlink
 * that leads out of the folder refuses the whole skill, so no file the operator did not put there
 * is ever offered to the model; links that stay inside are allowed.
 */
export async function readSkillFolder(dir: string): Promise<SkillFolder> {
  const root = await realpath(dir);
  const files: string[] = [];
  const walk = async (folder: string, depth: number): Promise<string | undefined> => {
    const entries = await readdir(folder, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(folder, entry.name);
      const shown = relative(dir, path);
      if (entry.isSymbolicLink()) {
        const target = await realpath(path).catch(() => undefined);
        if (target === undefined) return `${shown} is a broken symlink`;
        if (!isInside(root, target)) return `${shown} is a symlink out of the skill folder; refused`;
        if ((await lstat(target)).isDirectory()) return `${shown} is a symlink to a folder; copy it instead`;
        files.push(shown);
      } else if (entry.isDirectory()) {
        if (depth >= SKILL_MAX_DEPTH) return `${shown} is nested more than ${SKILL_MAX_DEPTH} folders deep`;
        const problem = await walk(path, depth + 1);
        if (problem) return problem;
      } else if (entry.isFile()) {
        files.push(shown);
      }
      if (files.length > SKILL_MAX_FILES) return `the skill has more than ${SKILL_MAX_FILES} files`;
    }
    return undefined;
  };
  const problem = await walk(dir, 0);
  if (problem) return { ok: false, reason: problem };
  if (!files.includes('SKILL.md')) return { ok: false, reason: 'the folder has no SKILL.md' };
  const skillMd = join(root, 'SKILL.md');
  const size = (await lstat(await realpath(skillMd))).size;
  if (size > SKILL_MD_MAX_BYTES) {
    return {
      ok: false,
      reason: `SKILL.md is ${size} bytes; the limit is ${SKILL_MD_MAX_BYTES} (move detail into files beside it)`,
    };
  }
  return { ok: true, text: await readFile(skillMd, 'utf8'), files };
}
