import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, lstat, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseSkillMd, readSkillFolder, SKILL_NAME_PATTERN } from '@openlegion/agent/skills';
import { OpenLegionError } from '@openlegion/protocol';

const run = promisify(execFile);

/** Written beside SKILL.md on install: where the skill came from, so it can be traced and updated. */
export const SKILL_SOURCE_FILE = '.openlegion-source.json';

/** A skill folder checked and ready to copy. */
export interface CheckedSkill {
  name: string;
  /** The absolute folder it came from. */
  from: string;
  /** Its files, relative to the folder (SKILL.md included; `.git` never). */
  files: string[];
  /** What {@link SKILL_SOURCE_FILE} records. */
  record: { source: string; commit?: string; installed_at: string };
}

/**
 * Check a folder before it is installed, the way an agent will read it: a SKILL.md with valid
 * frontmatter, no symlink out of the folder, not oversize.
 * A folder inside a git work tree records the commit it was taken at (`git rev-parse HEAD`).
 */
export async function checkSkillFolder(path: string, now: Date = new Date()): Promise<CheckedSkill> {
  const from = resolve(path);
  const info = await lstat(from).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new OpenLegionError(
      'SKILL_INVALID',
      `${path} is not a folder; give the skill's folder (it holds SKILL.md)`,
    );
  }
  const folder = await readSkillFolder(from);
  if (!folder.ok) throw new OpenLegionError('SKILL_INVALID', `cannot install ${path}: ${folder.reason}`);
  const parsed = parseSkillMd(folder.text);
  if (!parsed.ok) throw new OpenLegionError('SKILL_INVALID', `cannot install ${path}: ${parsed.reason}`);
  // Installed under its own name, so a folder called otherwise (a git clone's name) is fine.
  const { name } = parsed.frontmatter;
  const commit = await gitCommit(from);
  return {
    name,
    from,
    files: folder.files.filter((file) => !file.split(/[\\/]/).includes('.git') && file !== SKILL_SOURCE_FILE),
    record: { source: from, ...(commit ? { commit } : {}), installed_at: now.toISOString() },
  };
}

/** The commit of the git work tree holding `folder`, or undefined when it is not in one. */
async function gitCommit(folder: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('git', ['-C', folder, 'rev-parse', 'HEAD'], { timeout: 10_000 });
    const commit = stdout.trim();
    return /^[0-9a-f]{40,64}$/.test(commit) ? commit : undefined;
  } catch {
    return undefined; // not a git folder, or git is not installed: nothing to record
  }
}

/** The fleet's skills folder: `skills/` beside mesh.yaml. */
export function fleetSkillsDir(configFile: string): string {
  const config = resolve(configFile);
  if (!existsSync(config)) {
    throw new OpenLegionError(
      'CONFIG_NOT_FOUND',
      `no ${basename(config)} at ${config}; run this where mesh.yaml is, or pass -c`,
    );
  }
  return join(config, '..', 'skills');
}

/**
 * Copy a checked skill into `<skillsDir>/<name>`, with its source record. An installed skill of
 * the same name is replaced only with `force`. Files are copied, links resolved (all stay inside).
 */
export async function installSkillInto(
  skill: CheckedSkill,
  skillsDir: string,
  force = false,
): Promise<string> {
  const target = join(skillsDir, skill.name);
  if (existsSync(target)) {
    if (!force) {
      throw new OpenLegionError(
        'SKILL_INVALID',
        `a skill "${skill.name}" is already installed at ${target}; remove it first or pass --force`,
      );
    }
    await rm(target, { recursive: true, force: true });
  }
  await mkdir(target, { recursive: true });
  for (const file of skill.files) {
    await mkdir(join(target, file, '..'), { recursive: true });
    await cp(join(skill.from, file), join(target, file), { dereference: true });
  }
  await writeFile(join(target, SKILL_SOURCE_FILE), `${JSON.stringify(skill.record, null, 2)}\n`);
  return target;
}

/** Remove `<skillsDir>/<name>`; the name is checked so no path outside the folder is reached. */
export async function removeSkillFrom(name: string, skillsDir: string): Promise<string> {
  if (!SKILL_NAME_PATTERN.test(name)) {
    throw new OpenLegionError(
      'SKILL_INVALID',
      `"${name}" is not a skill name (lowercase letters, digits, hyphens)`,
    );
  }
  const target = join(skillsDir, name);
  if (!existsSync(target)) throw new OpenLegionError('SKILL_NOT_FOUND', `no skill "${name}" in ${skillsDir}`);
  await rm(target, { recursive: true, force: true });
  return target;
}

/** A file of a checked skill, for a PUT into an agent's workspace. */
export function readSkillFile(skill: CheckedSkill, file: string): Promise<Buffer> {
  return readFile(join(skill.from, file));
}
