/** The parts of a system prompt; higher priority comes first (seed 002). */
export const PROMPT_SECTION_PRIORITY = {
  context: 100,
  identity: 90,
  security: 85,
  formatting: 80,
  language: 75,
  tools: 60,
  skills: 50,
  memory: 40,
  reasoning: 30,
  custom: 20,
} as const;

export type PromptSectionName = keyof typeof PROMPT_SECTION_PRIORITY;

/**
 * How much of the system prompt a turn carries: `full` everything; `minimal` (`/quiet`) the
 * essentials; `none` (`/silent`) the one line that says who the agent is.
 */
export type PromptMode = 'full' | 'minimal' | 'none';

export const PROMPT_MODE_SECTIONS: Readonly<Record<PromptMode, readonly PromptSectionName[]>> = {
  full: Object.keys(PROMPT_SECTION_PRIORITY) as PromptSectionName[],
  minimal: ['context', 'identity', 'security', 'language'],
  none: ['identity'],
};

export interface PromptSection {
  name: PromptSectionName;
  text: string;
}

/** The sections the mode keeps, highest priority first, joined; empty sections are left out. */
export function assemblePrompt(sections: readonly PromptSection[], mode: PromptMode): string {
  const kept = PROMPT_MODE_SECTIONS[mode];
  return sections
    .filter((section) => kept.includes(section.name) && section.text.trim() !== '')
    .sort((a, b) => PROMPT_SECTION_PRIORITY[b.name] - PROMPT_SECTION_PRIORITY[a.name])
    .map((section) => section.text.trim())
    .join('\n\n');
}
