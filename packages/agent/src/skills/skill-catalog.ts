import { lstat, readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { SkillEntry, SkillSource } from '@openlegion/protocol';
import { ineligibleReason, type SkillHost } from './skill-eligibility.js';
import { isInside, readSkillFolder } from './skill-folder.js';
import { parseSkillMd } from './skill-frontmatter.js';

/** One folder skills are read from. */
export interface SkillRoot {
  source: SkillSource;
  /** Absolute path of the folder holding one folder per skill; a missing folder holds none. */
  dir: string;
  /** How paths in it are shown to the model: the workspace's relative to it, others absolute. */
  shownAs?: (absolute: string) => string;
}

/** An eligible skill, ready for the prompt and `skill_view`. */
export interface Skill {
  name: string;
  description: string;
  source: SkillSource;
  /** Absolute path of the skill folder. */
  dir: string;
  /** The folder as the model should name it (see {@link SkillRoot.shownAs}). */
  shownDir: string;
  body: string;
  /** Files in the folder, relative to it (SKILL.md included). */
  files: string[];
}

/** Every skill folder found (with reasons for those left out) and the skills offered. */
export interface SkillSnapshot {
  entries: SkillEntry[];
  skills: Skill[];
}

/**
 * Read the skill roots in precedence order (bundled < fleet < workspace). A skill of the same
 * name in a later root wins; the one it hides is listed as shadowed. A broken skill is listed
 * with its reason and never stops the others from loading.
 */
export async function loadSkills(roots: readonly SkillRoot[], host: SkillHost): Promise<SkillSnapshot> {
  const found: { entry: SkillEntry; skill?: Skill | undefined }[] = [];
  for (const root of roots) {
    for (const folder of await skillFolders(root.dir)) {
      found.push(
        await loadOne(root, folder, host).catch((error: unknown) => ({
          // A folder changed while it was read (removed, replaced): listed with why, the rest go on.
          entry: {
            name: folder,
            description: '',
            source: root.source,
            path: root.shownAs ? root.shownAs(join(root.dir, folder)) : join(root.dir, folder),
            eligible: false,
            reason: `cannot read the skill: ${error instanceof Error ? error.message : String(error)}`,
          },
        })),
      );
    }
  }
  const winner = new Map<string, SkillSource>();
  for (const { entry, skill } of found) if (skill) winner.set(entry.name, entry.source);
  const entries: SkillEntry[] = [];
  const skills: Skill[] = [];
  for (const { entry, skill } of found) {
    const wins = winner.get(entry.name);
    if (skill && wins !== entry.source) {
      entries.push({ ...entry, eligible: false, reason: `shadowed by the ${wins} skill of the same name` });
    } else {
      entries.push(entry);
      if (skill) skills.push(skill);
    }
  }
  return { entries, skills: skills.sort((a, b) => a.name.localeCompare(b.name)) };
}

async function skillFolders(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => (entry.isDirectory() || entry.isSymbolicLink()) && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
}

async function loadOne(
  root: SkillRoot,
  folderName: string,
  host: SkillHost,
): Promise<{ entry: SkillEntry; skill?: Skill }> {
  const dir = join(root.dir, folderName);
  const shownDir = root.shownAs ? root.shownAs(dir) : dir;
  const refuse = (reason: string, name = folderName, description = '') => ({
    entry: { name, description, source: root.source, path: shownDir, eligible: false, reason },
  });
  const linked = await folderLinkProblem(root.dir, dir);
  if (linked) return refuse(linked);
  const folder = await readSkillFolder(dir).catch((error: unknown) => ({
    ok: false as const,
    reason: `cannot read the folder: ${error instanceof Error ? error.message : String(error)}`,
  }));
  if (!folder.ok) return refuse(folder.reason);
  const parsed = parseSkillMd(folder.text);
  if (!parsed.ok) return refuse(parsed.reason);
  const { name, description } = parsed.frontmatter;
  if (name !== folderName) {
    return refuse(
      `its name "${name}" does not match its folder "${folderName}"; rename one`,
      name,
      description,
    );
  }
  const reason = await ineligibleReason(parsed.frontmatter, host);
  if (reason) return refuse(reason, name, description);
  return {
    entry: { name, description, source: root.source, path: shownDir, eligible: true },
    skill: { name, description, source: root.source, dir, shownDir, body: parsed.body, files: folder.files },
  };
}

/** A skill folder that is itself a symlink must stay inside its root. */
async function folderLinkProblem(rootDir: string, dir: string): Promise<string | undefined> {
  if (!(await lstat(dir)).isSymbolicLink()) return undefined;
  const [root, target] = await Promise.all([realpath(rootDir), realpath(dir).catch(() => undefined)]);
  if (target === undefined) return 'the skill folder is a broken symlink';
  return isInside(root, target)
    ? undefined
    : 'the skill folder is a symlink out of the skills folder; refused';
}
