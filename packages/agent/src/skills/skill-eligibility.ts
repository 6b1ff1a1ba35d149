import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { SkillFrontmatter } from './skill-frontmatter.js';

/** What eligibility is checked against; tests pass their own. */
export interface SkillHost {
  /** `process.platform`: linux, darwin, win32. */
  platform: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Skill names mesh.yaml disables for this agent. */
  disabled: readonly string[];
}

/** The host this process runs on, with the disabled list from mesh.yaml. */
export function currentSkillHost(disabled: readonly string[]): SkillHost {
  return { platform: process.platform, env: process.env, disabled };
}

/** Why a skill is not offered, or undefined when it is. The first unmet requirement is named. */
export async function ineligibleReason(
  frontmatter: SkillFrontmatter,
  host: SkillHost,
): Promise<string | undefined> {
  if (host.disabled.includes(frontmatter.name)) return 'disabled in mesh.yaml (agents.NAME.skills.disabled)';
  const requires = frontmatter.requires ?? {};
  const os = requires.os ?? [];
  if (os.length > 0 && !os.includes(host.platform)) {
    return `needs OS ${os.join(' or ')}; this agent runs on ${host.platform}`;
  }
  for (const name of requires.env ?? []) {
    if (!host.env[name]) return `needs the environment variable ${name}, which is not set`;
  }
  for (const bin of requires.bins ?? []) {
    if (!(await onPath(bin, host.env.PATH ?? ''))) return `needs the program "${bin}", not found on PATH`;
  }
  return undefined;
}

/** An executable named `bin` in one of PATH's folders (a name with a slash is never looked up). */
async function onPath(bin: string, path: string): Promise<boolean> {
  if (bin.includes('/') || bin.includes('\\')) return false;
  for (const folder of path.split(delimiter).filter(Boolean)) {
    const found = await access(join(folder, bin), constants.X_OK).then(
      () => true,
      () => false,
    );
    if (found) return true;
  }
  return false;
}
