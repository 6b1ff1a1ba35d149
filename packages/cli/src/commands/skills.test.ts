import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isOpenLegionError } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { checkSkillFolder, installSkillInto, removeSkillFrom, SKILL_SOURCE_FILE } from './skill-install.js';
import { formatSkills } from './skills.js';

const SKILL_MD = `---
name: weekly-report
description: Write the weekly report from the tracker's export.
license: MIT
---

1. Run \`python3 scripts/report.py\`.
`;

async function failure(work: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await work;
  } catch (error) {
    if (isOpenLegionError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('openlegion skills install and remove', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const temp = () => {
    const dir = mkdtempSync(join(tmpdir(), 'skills-cli-'));
    dirs.push(dir);
    return dir;
  };
  /** A git repository holding a skill in a folder named otherwise, as a clone often is. */
  const gitSkill = () => {
    const repo = temp();
    const folder = join(repo, 'reports');
    mkdirSync(join(folder, 'scripts'), { recursive: true });
    writeFileSync(join(folder, 'SKILL.md'), SKILL_MD);
    writeFileSync(join(folder, 'scripts', 'report.py'), 'print("report")\n');
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
        encoding: 'utf8',
      }).trim();
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'a skill');
    return { folder, commit: git('rev-parse', 'HEAD') };
  };

  it('copies a skill from a git folder under its own name and records the source and the commit', async () => {
    const { folder, commit } = gitSkill();
    const skills = join(temp(), 'skills');
    const now = new Date('2026-11-26T02:00:00Z');
    const target = await installSkillInto(await checkSkillFolder(folder, now), skills);
    expect(target).toBe(join(skills, 'weekly-report'));
    expect(readFileSync(join(target, 'scripts', 'report.py'), 'utf8')).toBe('print("report")\n');
    expect(JSON.parse(readFileSync(join(target, SKILL_SOURCE_FILE), 'utf8'))).toEqual({
      source: folder,
      commit,
      installed_at: '2026-11-26T02:00:00.000Z',
    });
  });

  it('records no commit for a folder outside git', async () => {
    const folder = join(temp(), 'weekly-report');
    mkdirSync(folder);
    writeFileSync(join(folder, 'SKILL.md'), SKILL_MD);
    expect((await checkSkillFolder(folder)).record.commit).toBeUndefined();
  });

  it('refuses a folder with a symlink out of it, with SKILL_INVALID', async () => {
    const folder = join(temp(), 'weekly-report');
    mkdirSync(folder);
    writeFileSync(join(folder, 'SKILL.md'), SKILL_MD);
    symlinkSync('/etc/passwd', join(folder, 'users.txt'));
    expect(await failure(checkSkillFolder(folder))).toEqual({
      code: 'SKILL_INVALID',
      message: `cannot install ${folder}: users.txt is a symlink out of the skill folder; refused`,
    });
  });

  it('refuses a SKILL.md without frontmatter, and an installed name unless forced', async () => {
    const folder = join(temp(), 'plain');
    mkdirSync(folder);
    writeFileSync(join(folder, 'SKILL.md'), '# no frontmatter\n');
    expect((await failure(checkSkillFolder(folder))).message).toBe(
      `cannot install ${folder}: SKILL.md has no YAML frontmatter (start it with a --- line, name and description, ---)`,
    );
    const { folder: good } = gitSkill();
    const skills = join(temp(), 'skills');
    await installSkillInto(await checkSkillFolder(good), skills);
    expect((await failure(installSkillInto(await checkSkillFolder(good), skills))).code).toBe(
      'SKILL_INVALID',
    );
    await installSkillInto(await checkSkillFolder(good), skills, true);
  });

  it('removes an installed skill; an unknown or path-like name is refused', async () => {
    const { folder } = gitSkill();
    const skills = join(temp(), 'skills');
    await installSkillInto(await checkSkillFolder(folder), skills);
    await removeSkillFrom('weekly-report', skills);
    expect(existsSync(join(skills, 'weekly-report'))).toBe(false);
    expect((await failure(removeSkillFrom('weekly-report', skills))).code).toBe('SKILL_NOT_FOUND');
    expect((await failure(removeSkillFrom('../skills', skills))).code).toBe('SKILL_INVALID');
  });

  it('prints one line per skill with the reason one is left out', () => {
    expect(
      formatSkills([
        {
          name: 'csv-summary',
          description: '',
          source: 'fleet',
          path: '/skills/csv-summary',
          eligible: true,
        },
        { name: 'pdf', description: '', source: 'bundled', path: '/x', eligible: false, reason: 'disabled' },
      ]),
    ).toBe('csv-summary  fleet      ok\npdf          bundled    left out: disabled\n');
  });
});
