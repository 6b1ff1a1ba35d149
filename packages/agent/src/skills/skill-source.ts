import { loadSkills, type SkillSnapshot } from './skill-catalog.js';
import { currentSkillHost } from './skill-eligibility.js';
import { bundledSkillsDir, skillRoots } from './skill-roots.js';

export interface SkillSourceOptions {
  workspace: string;
  /** The fleet's `skills/` folder as this agent sees it (`AGENT_FLEET_SKILLS_DIR`); none when unset. */
  fleetDir?: string | undefined;
  /** Default: the `skills/` folder shipped with the agent. */
  bundledDir?: string | undefined;
  /** mesh.yaml `agents.NAME.skills.disabled`, known once the host has answered `/mesh/self`. */
  disabled: () => readonly string[];
}

/**
 * The agent's skills, read anew on each call: a skill installed while the agent runs is seen at
 * the next turn, with no restart. A few folder reads; cheap next to an LLM call.
 */
export function skillSource(options: SkillSourceOptions): () => Promise<SkillSnapshot> {
  const roots = skillRoots({
    workspace: options.workspace,
    fleetDir: options.fleetDir,
    bundledDir: options.bundledDir ?? bundledSkillsDir(),
  });
  return () => loadSkills(roots, currentSkillHost(options.disabled()));
}
