import { parse } from 'yaml';
import { z } from 'zod';

/** The Agent Skills name rule (agentskills.io): lowercase letters, digits and single hyphens, ≤ 64. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const stringList = z.array(z.string().min(1)).default([]);

/**
 * SKILL.md frontmatter: the public format's fields, plus our optional `requires`. Unknown keys
 * are kept, not refused, so a public skill that carries more (e.g. `compatibility`) loads unchanged.
 */
export const skillFrontmatterSchema = z.looseObject({
  name: z
    .string()
    .max(64)
    .regex(SKILL_NAME_PATTERN, 'use lowercase letters, digits and hyphens (e.g. pdf-report)'),
  description: z.string().min(1).max(1_024),
  license: z.string().optional(),
  'allowed-tools': z.union([z.string(), z.array(z.string())]).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  /** What the skill needs to be offered: binaries on PATH, env variables set, one of these OSes. */
  requires: z.object({ bins: stringList, env: stringList, os: stringList }).partial().optional(),
});
export type SkillFrontmatter = z.infer<typeof skillFrontmatterSchema>;

export type ParsedSkillMd =
  | { ok: true; frontmatter: SkillFrontmatter; body: string }
  | { ok: false; reason: string };

/**
 * Split SKILL.md into its YAML frontmatter (between `---` lines at the top) and its Markdown body,
 * and check the frontmatter. A failure is a reason a model and an operator can act on.
 */
export function parseSkillMd(text: string): ParsedSkillMd {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) {
    return {
      ok: false,
      reason: 'SKILL.md has no YAML frontmatter (start it with a --- line, name and description, ---)',
    };
  }
  let data: unknown;
  try {
    // No aliases: a small file must not expand into a huge object.
    data = parse(match[1] ?? '', { maxAliasCount: 0 });
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { ok: false, reason: `SKILL.md frontmatter is not valid YAML: ${message}` };
  }
  const result = skillFrontmatterSchema.safeParse(data ?? {});
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `${issue.path.join('.') || 'frontmatter'}: ${issue.message}`,
    );
    return { ok: false, reason: `SKILL.md frontmatter is invalid: ${problems.join('; ')}` };
  }
  return { ok: true, frontmatter: result.data, body: text.slice(match[0].length).trim() };
}
