import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SkillRoot } from './skill-catalog.js';

/** Where the host shows the fleet's `skills/` folder to the agent (a read-only mount in a container). */
export const FLEET_SKILLS_ENV = 'AGENT_FLEET_SKILLS_DIR';

/**
 * The skills shipped with the agent: `skills/` beside the agent package's package.json. The same
 * walk works from src/ (tests), dist/ and the image's bundle (/app/bundle → /app/skills), since
 * the deployment keeps package.json and the `skills` folder (package.json `files`).
 */
export function bundledSkillsDir(from: string = fileURLToPath(import.meta.url)): string | undefined {
  let dir = dirname(from);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) {
      const skills = join(dir, 'skills');
      return existsSync(skills) ? skills : undefined;
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The three sources in precedence order: bundled < fleet < the agent's workspace. */
export function skillRoots(options: {
  workspace: string;
  fleetDir?: string | undefined;
  bundledDir?: string | undefined;
}): SkillRoot[] {
  const roots: SkillRoot[] = [];
  if (options.bundledDir) roots.push({ source: 'bundled', dir: options.bundledDir });
  if (options.fleetDir) roots.push({ source: 'fleet', dir: options.fleetDir });
  roots.push({
    source: 'workspace',
    dir: join(options.workspace, 'skills'),
    // Workspace skills are named as the file tools take them: relative to the workspace.
    shownAs: (absolute) => relative(options.workspace, absolute),
  });
  return roots;
}
