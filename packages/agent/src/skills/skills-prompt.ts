import type { Skill } from './skill-catalog.js';

/**
 * The skills section of the system prompt: one line per skill (name: description) while the
 * budget lasts, then the remaining names only, so every skill stays reachable by `skill_view`.
 * Empty when there is no skill or the budget is 0.
 */
export function skillsPrompt(skills: readonly Skill[], budgetChars: number): string {
  if (skills.length === 0 || budgetChars <= 0) return '';
  const header =
    'Skills (instructions for particular jobs): when one fits the task, call skill_view with its name ' +
    'first and follow it. Run its scripts yourself with run_command when it says to.';
  const lines: string[] = [];
  let used = header.length;
  let index = 0;
  for (; index < skills.length; index += 1) {
    const skill = skills[index] as Skill; // index < length
    const line = `- ${skill.name}: ${oneLine(skill.description)}`;
    // Keep room for the names of those that will not fit.
    if (used + line.length + 1 > budgetChars) break;
    lines.push(line);
    used += line.length + 1;
  }
  const rest = skills.slice(index).map((skill) => skill.name);
  if (rest.length > 0) {
    const more = `- more (view for details): ${rest.join(', ')}`;
    lines.push(more.length + used <= budgetChars ? more : `- ${rest.length} more; ask skill_view with a name`);
  }
  return [header, ...lines].join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
