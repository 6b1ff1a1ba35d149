import { readFile, realpath, stat } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import type { AgentTool } from '@openlegion/protocol';
import { z } from 'zod';
import { guardTool, ToolFailure } from '../tools/tool-failure.js';
import type { Skill, SkillSnapshot } from './skill-catalog.js';
import { isInside } from './skill-folder.js';

/** Most characters of one skill file returned (SKILL.md itself is capped at load). */
const SKILL_FILE_MAX_CHARS = 50_000;

const skillViewInput = z.object({
  name: z.string().min(1).describe('The skill name, as listed in your prompt'),
  file: z
    .string()
    .optional()
    .describe('A file of the skill to read instead of SKILL.md, e.g. reference/forms.md'),
});

/**
 * `skill_view`: a skill's instructions (SKILL.md's body) and the list of its files, or one of those
 * files. It only reads: a skill's scripts are run by the model's own `run_command`, never by us.
 */
export function createSkillViewTool(
  load: () => Promise<SkillSnapshot>,
): AgentTool<z.infer<typeof skillViewInput>> {
  return {
    name: 'skill_view',
    group: 'skills',
    description: "Read a skill's instructions and list its files; with file, read one of its files.",
    input: skillViewInput,
    run: (input, _context) =>
      guardTool(async () => {
        const snapshot = await load();
        const skill = snapshot.skills.find((candidate) => candidate.name === input.name);
        if (!skill) throw new ToolFailure(missing(input.name, snapshot));
        if (input.file === undefined) return viewSkill(skill);
        return readSkillFile(skill, input.file);
      }),
  };
}

function missing(name: string, snapshot: SkillSnapshot): string {
  const entry = snapshot.entries.find((candidate) => candidate.name === name);
  if (entry?.reason) return `the skill "${name}" is not available: ${entry.reason}`;
  const names = snapshot.skills.map((skill) => skill.name);
  return `there is no skill "${name}"; skills: ${names.join(', ') || 'none'}`;
}

function viewSkill(skill: Skill): string {
  const others = skill.files.filter((file) => file !== 'SKILL.md');
  const files =
    others.length === 0
      ? 'The skill has no other files.'
      : `Files of the skill, in ${skill.shownDir} (read one with skill_view file=PATH; run scripts with run_command):\n${others.map((file) => `- ${file}`).join('\n')}`;
  return `# Skill ${skill.name} (${skill.source})\n\n${skill.body}\n\n${files}`;
}

async function readSkillFile(skill: Skill, file: string): Promise<string> {
  const relative = normalize(file.trim());
  if (!skill.files.includes(relative)) {
    throw new ToolFailure(
      `the skill "${skill.name}" has no file "${file}"; its files: ${skill.files.join(', ')}`,
    );
  }
  // Checked again on the real path: the folder may have changed since it was listed.
  const [root, target] = await Promise.all([realpath(skill.dir), realpath(join(skill.dir, relative))]);
  if (!isInside(root, target)) throw new ToolFailure(`${file} leads out of the skill folder; refused`);
  const info = await stat(target);
  const text = await readFile(target, 'utf8');
  if (text.includes('\u0000')) throw new ToolFailure(`${file} is a binary file (${info.size} bytes)`);
  return text.length > SKILL_FILE_MAX_CHARS
    ? `${text.slice(0, SKILL_FILE_MAX_CHARS)}\n[… cut at ${SKILL_FILE_MAX_CHARS} characters of ${text.length}]`
    : text;
}
