import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolResult } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bundledSkillsDir,
  createSkillViewTool,
  loadSkills,
  SKILL_MD_MAX_BYTES,
  type SkillHost,
  skillRoots,
  skillsPrompt,
} from './index.js';

const fixtures = fileURLToPath(new URL('../../test/fixtures/skills/', import.meta.url));
const host: SkillHost = { platform: 'linux', env: { PATH: '/usr/bin:/bin' }, disabled: [] };
const roots = (workspace = join(fixtures, 'workspace')) =>
  skillRoots({ workspace, fleetDir: join(fixtures, 'fleet'), bundledDir: bundledSkillsDir() });
const textOf = (result: ToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
const context = { workspace: '/nowhere', signal: new AbortController().signal };

describe('loadSkills', () => {
  const temporary: string[] = [];
  afterEach(() => {
    for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const tempSkills = () => {
    const dir = mkdtempSync(join(tmpdir(), 'skills-'));
    temporary.push(dir);
    return dir;
  };
  const writeSkill = (root: string, name: string, text: string) => {
    mkdirSync(join(root, name), { recursive: true });
    writeFileSync(join(root, name, 'SKILL.md'), text);
  };

  it('lets the workspace win over the fleet, and the fleet over the bundled skills', async () => {
    const { skills, entries } = await loadSkills(roots(), host);
    const offered = Object.fromEntries(skills.map((skill) => [skill.name, skill.source]));
    expect(offered).toEqual({
      'csv-summary': 'workspace',
      'research-notes': 'fleet',
      'skill-authoring': 'bundled',
    });
    const shadowed = entries.filter((entry) => entry.reason?.startsWith('shadowed'));
    expect(shadowed.map((entry) => [entry.name, entry.source, entry.reason])).toEqual([
      ['research-notes', 'bundled', 'shadowed by the fleet skill of the same name'],
      ['csv-summary', 'fleet', 'shadowed by the workspace skill of the same name'],
    ]);
  });

  it('leaves out a skill whose binary, OS or env variable is missing, or that is disabled, saying why', async () => {
    const { entries } = await loadSkills(roots(), { ...host, disabled: ['skill-authoring'] });
    const reasons = Object.fromEntries(entries.filter((e) => !e.eligible).map((e) => [e.name, e.reason]));
    expect(reasons).toMatchObject({
      'pdf-extract': 'needs the program "pdftotext-openlegion-test-missing", not found on PATH',
      'mac-notes': 'needs OS darwin; this agent runs on linux',
      'notion-sync': 'needs the environment variable NOTION_TOKEN, which is not set',
      'skill-authoring': 'disabled in mesh.yaml (agents.NAME.skills.disabled)',
    });
  });

  it('offers a skill once its requirements are met', async () => {
    const { skills } = await loadSkills(roots(), {
      ...host,
      platform: 'darwin',
      env: { ...host.env, NOTION_TOKEN: 'x' },
    });
    expect(skills.map((skill) => skill.name)).toEqual(expect.arrayContaining(['mac-notes', 'notion-sync']));
  });

  it('lists a SKILL.md without frontmatter, with bad YAML or a name unlike its folder, with the reason', async () => {
    const { entries, skills } = await loadSkills(roots(), host);
    const reasons = Object.fromEntries(entries.filter((e) => !e.eligible).map((e) => [e.name, e.reason]));
    expect(reasons['no-frontmatter']).toBe(
      'SKILL.md has no YAML frontmatter (start it with a --- line, name and description, ---)',
    );
    expect(reasons['bad-yaml']).toMatch(/^SKILL\.md frontmatter is not valid YAML: /);
    expect(reasons['other-name']).toBe(
      'its name "other-name" does not match its folder "misnamed"; rename one',
    );
    expect(skills.length).toBe(3); // the good ones still load
  });

  it('refuses an oversize SKILL.md and a skill with a symlink out of its folder', async () => {
    const root = tempSkills();
    const outside = tempSkills();
    writeFileSync(join(outside, 'secret.txt'), 'not for the model');
    writeSkill(root, 'huge', `---\nname: huge\ndescription: d\n---\n${'x'.repeat(SKILL_MD_MAX_BYTES)}`);
    writeSkill(root, 'leaky', '---\nname: leaky\ndescription: d\n---\nRead notes.txt');
    symlinkSync(join(outside, 'secret.txt'), join(root, 'leaky', 'notes.txt'));
    writeSkill(root, 'linked-inside', '---\nname: linked-inside\ndescription: d\n---\nok');
    writeFileSync(join(root, 'linked-inside', 'a.md'), 'a');
    symlinkSync(join(root, 'linked-inside', 'a.md'), join(root, 'linked-inside', 'b.md'));
    symlinkSync(outside, join(root, 'escaped-folder'));
    const { entries, skills } = await loadSkills([{ source: 'fleet', dir: root }], host);
    const reasons = Object.fromEntries(entries.map((e) => [e.name, e.reason]));
    expect(reasons).toEqual({
      'escaped-folder': 'the skill folder is a symlink out of the skills folder; refused',
      huge: expect.stringMatching(/^SKILL\.md is \d+ bytes; the limit is 65536/),
      leaky: 'notes.txt is a symlink out of the skill folder; refused',
      'linked-inside': undefined,
    });
    expect(skills.map((skill) => skill.files)).toEqual([['SKILL.md', 'a.md', 'b.md']]);
  });
});

describe('skillsPrompt', () => {
  it('lists names and descriptions within the budget, then the names that did not fit', async () => {
    const { skills } = await loadSkills(roots(), host);
    const full = skillsPrompt(skills, 2_000);
    expect(full).toContain('- csv-summary: Summarise a CSV file, the agent');
    expect(full.length).toBeLessThanOrEqual(2_000);
    const tight = skillsPrompt(skills, 400);
    expect(tight.length).toBeLessThanOrEqual(400);
    expect(tight).toMatch(/- more \(skill_view gives details\): .*skill-authoring/);
    expect(skillsPrompt(skills, 0)).toBe('');
  });
});

describe('skill_view', () => {
  const tool = createSkillViewTool(() => loadSkills(roots(), host));

  it("gives the skill's body and its files, which the workspace's file tools can read", async () => {
    const text = textOf(await tool.run({ name: 'csv-summary' }, context));
    expect(text).toContain('# CSV summary (workspace copy)');
    expect(text).toContain('in skills/csv-summary (read one');
    expect(text).toContain('- reference.md\n- scripts/summarize.py');
  });

  it('reads one file of the skill, and refuses one it does not have', async () => {
    expect(textOf(await tool.run({ name: 'csv-summary', file: 'reference.md' }, context))).toContain(
      'Present counts first',
    );
    const refused = await tool.run({ name: 'csv-summary', file: '../../secret' }, context);
    expect([refused.isError, textOf(refused)]).toEqual([
      true,
      'the skill "csv-summary" has no file "../../secret"; its files: SKILL.md, reference.md, scripts/summarize.py',
    ]);
  });

  it('says why a skill left out cannot be viewed', async () => {
    const result = await tool.run({ name: 'notion-sync' }, context);
    expect(textOf(result)).toBe(
      'the skill "notion-sync" is not available: needs the environment variable NOTION_TOKEN, which is not set',
    );
  });
});
