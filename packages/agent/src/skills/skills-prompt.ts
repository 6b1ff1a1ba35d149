import { stripInvisible } from '@openlegion/protocol';
import type { Skill } from './skill-catalog.js';

/**
 * The skills section of the system prompt: one line per skill (name: description) while the
 * budget lasts, then the remaining names only, so every skill stays reachable by `skill_view`.
 * Empty when there is no skill or the budget cannot hold even the names (`skill_view` still works).
 */
export function skillsPrompt(skills: readonly Skill[], budgetChars: number): string {
  if (skills.length === 0 || budgetChars <= 0) return '';
  const header =
    'Skills (instructions for particular jobs): when one fits the task, call skill_view with its name ' +
    'first and follow it. Run its scripts yourself with run_command when it says to.';
  const lines = skills.map((skill) => `- ${skill.name}: ${oneLine(skill.description)}`);
  const rest: string[] = [];
  const size = () => [header, ...lines, moreLine(rest)].join('\n').length;
  // Drop described lines from the end (their names go to the last line) until the whole fits.
  while (lines.length > 0 && size() > budgetChars) {
    lines.pop();
    rest.unshift((skills[lines.length] as Skill).name); // lines and skills have the same length
  }
  if (size() > budgetChars) return '';
  if (rest.length > 0) lines.push(moreLine(rest));
  return [header, ...lines].join('\n');
}

function moreLine(names: readonly string[]): string {
  return names.length === 0 ? '' : `- more (skill_view gives details): ${names.join(', ')}`;
}

/** A workspace skill may have been written by the agent itself: no hidden characters reach the prompt. */
function oneLine(text: string): string {
  return stripInvisible(text).replace(/\s+/g, ' ').trim();
}
