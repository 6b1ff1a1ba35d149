import { z } from 'zod';

/**
 * Characters of the skills list (names and descriptions) in the system prompt. 2,000 is about
 * 500 tokens: twenty-odd skills with one-line descriptions; a skill past the budget is still
 * listed by name so the model can `skill_view` it.
 */
export const SKILLS_PROMPT_CHARS_DEFAULT = 2_000;

/** mesh.yaml `agents.NAME.skills`: which skills the agent is shown (docs/tools.md). */
export const agentSkillsSchema = z
  .object({
    /** Skill names left out for this agent (listed by `skills list AGENT` with reason `disabled`). */
    disabled: z.array(z.string().min(1).max(64)).default([]),
    /** Prompt budget of the skills list; 0 lists no skill in the prompt (`skill_view` still works). */
    prompt_chars: z
      .number()
      .int()
      .min(0)
      .max(20_000, { error: 'at most 20000 characters: the list shares the prompt with the conversation' })
      .default(SKILLS_PROMPT_CHARS_DEFAULT),
  })
  .strict();
export type AgentSkillsConfig = z.infer<typeof agentSkillsSchema>;

/**
 * How tool schemas reach the model. `on_demand` (default): the core tools, the tools named in a
 * `tools` list, and `tool_search`; the model loads the rest by keyword or group, and what it loaded
 * stays for the rest of the conversation, after the stable core (a cache-friendly prefix). With 38+
 * tools, sending every schema costs ~5,500 tokens per call. `all`: every permitted tool, every call.
 */
export const TOOL_LOADING_MODES = ['on_demand', 'all'] as const;
export type ToolLoading = (typeof TOOL_LOADING_MODES)[number];
export const toolLoadingSchema = z.enum(TOOL_LOADING_MODES).default('on_demand');
