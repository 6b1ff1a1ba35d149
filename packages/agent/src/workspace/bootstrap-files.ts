import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stripInvisible } from '../untrusted/untrusted-text.js';
import { truncateHeadTail } from './head-tail-truncate.js';

/** The workspace files injected into the prompt, in order, with their caps in characters. */
export const BOOTSTRAP_CAPS: Readonly<Record<BootstrapFileName, number>> = {
  'SOUL.md': 4_000,
  'AGENTS.md': 8_000,
  'USER.md': 4_000,
  'MEMORY.md': 16_000,
};
/** All injected workspace text together, the mesh.yaml soul included. */
export const BOOTSTRAP_TOTAL_CAP_CHARS = 40_000;

export type BootstrapFileName = 'SOUL.md' | 'AGENTS.md' | 'USER.md' | 'MEMORY.md';

/** One workspace file as the prompt carries it. */
export interface BootstrapFile {
  name: BootstrapFileName;
  /** What the prompt carries (comments removed, capped). */
  text: string;
  /** Characters of the file after comments were removed. */
  chars: number;
  truncated: boolean;
}

export interface BootstrapOptions {
  caps?: Partial<Record<BootstrapFileName, number>>;
  totalCap?: number;
  /** Characters already spent from the total (the mesh.yaml soul). */
  reserved?: number;
}

/** HTML comments are notes for people (the scaffolds are made of them); the model does not need them. */
export function withoutComments(text: string): string {
  return text.replace(/<!--[\s\S]*?-->/g, '').trim();
}

/**
 * Read SOUL.md, AGENTS.md, USER.md and MEMORY.md from the workspace, each within its cap and all
 * within the total. Missing or empty files are left out; daily logs (`memory/*.md`) never come in.
 */
export async function loadBootstrapFiles(
  workspace: string,
  options: BootstrapOptions = {},
): Promise<BootstrapFile[]> {
  let budget = (options.totalCap ?? BOOTSTRAP_TOTAL_CAP_CHARS) - (options.reserved ?? 0);
  const files: BootstrapFile[] = [];
  for (const [name, defaultCap] of Object.entries(BOOTSTRAP_CAPS) as [BootstrapFileName, number][]) {
    const raw = await readFile(join(workspace, name), 'utf8').catch(() => '');
    // The agent writes MEMORY.md itself, sometimes from what it read: no hidden characters get in.
    const text = stripInvisible(withoutComments(raw));
    if (text === '') continue;
    const cap = Math.max(0, Math.min(options.caps?.[name] ?? defaultCap, budget));
    const kept = truncateHeadTail(name, text, cap);
    budget -= kept.length;
    files.push({ name, text: kept, chars: text.length, truncated: kept !== text });
  }
  return files;
}
