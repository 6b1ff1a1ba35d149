import { z } from 'zod';

/** Where a skill came from, lowest precedence first: a later source's skill of the same name wins. */
export const SKILL_SOURCES = ['bundled', 'fleet', 'workspace'] as const;
export type SkillSource = (typeof SKILL_SOURCES)[number];

/**
 * One skill folder as an agent sees it. `eligible` skills are listed in the prompt; the others say
 * why not (`reason`): a missing binary, env var or OS, disabled in mesh.yaml, shadowed by a skill
 * of the same name from a higher source, or a SKILL.md that could not be read (bad frontmatter,
 * oversize, a symlink out of the folder).
 */
export const skillEntrySchema = z.object({
  /** The frontmatter name, or the folder's name when the SKILL.md could not be read. */
  name: z.string(),
  description: z.string(),
  source: z.enum(SKILL_SOURCES),
  /** The folder, as the agent's file tools reach it (a workspace path or an absolute one). */
  path: z.string(),
  eligible: z.boolean(),
  reason: z.string().optional(),
});
export type SkillEntry = z.infer<typeof skillEntrySchema>;

/** `GET /skills/` on an agent (`GET /api/agents/:agent/skills/` through the host). */
export const skillsListSchema = z.object({ skills: z.array(skillEntrySchema) });
export type SkillsList = z.infer<typeof skillsListSchema>;

/** `DELETE /skills/NAME` on an agent: the skill removed from its workspace. */
export const skillRemovedSchema = z.object({ removed: z.string() });
export type SkillRemoved = z.infer<typeof skillRemovedSchema>;
