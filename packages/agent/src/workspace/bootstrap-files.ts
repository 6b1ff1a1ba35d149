import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InstructionFile } from '@openlegion/protocol';
import { stripInvisible } from '@openlegion/protocol';
import { truncateHeadTail } from './head-tail-truncate.js';

/** The files injected into the prompt, in order, with their caps in characters. */
export const BOOTSTRAP_CAPS: Readonly<Record<BootstrapFileName, number>> = {
  'SOUL.md': 4_000,
  'AGENTS.md': 8_000,
  'USER.md': 4_000,
  'MEMORY.md': 16_000,
};

/** All injected text together, the mesh.yaml soul included. */
export const BOOTSTRAP_TOTAL_CAP_CHARS = 40_000;

export type BootstrapFileName = 'SOUL.md' | 'AGENTS.md' | 'USER.md' | 'MEMORY.md';

/** The texts of AGENTS.md and SOUL.md for this turn: the host's copy, or the built-in templates. */
export type InstructionTexts = Readonly<Record<InstructionFile, string>>;

/** One injected file as the prompt carries it. */
export interface BootstrapFile {
  name: BootstrapFileName;
  /** `operator`: AGENTS.md and SOUL.md, from the host; `workspace`: the agent's own files. */
  source: 'operator' | 'workspace';
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

const isInstruction = (name: BootstrapFileName): name is InstructionFile =>
  name === 'AGENTS.md' || name === 'SOUL.md';

/**
 * SOUL.md and AGENTS.md from `instructions` (the operator's, held by the host: a workspace file of
 * that name is never read), USER.md and MEMORY.md from the workspace; each within its cap and all
 * within the total. Empty files are left out; daily logs (`memory/*.md`) never come in.
 */
export async function loadBootstrapFiles(
  workspace: string,
  instructions: InstructionTexts,
  options: BootstrapOptions = {},
): Promise<BootstrapFile[]> {
  let budget = (options.totalCap ?? BOOTSTRAP_TOTAL_CAP_CHARS) - (options.reserved ?? 0);
  const files: BootstrapFile[] = [];
  for (const [name, defaultCap] of Object.entries(BOOTSTRAP_CAPS) as [BootstrapFileName, number][]) {
    const operator = isInstruction(name);
    const raw = operator ? instructions[name] : await readFile(join(workspace, name), 'utf8').catch(() => '');
    // The agent writes MEMORY.md itself, sometimes from what it read: no hidden characters get in.
    const text = stripInvisible(withoutComments(raw));
    if (text === '') continue;
    const cap = Math.max(0, Math.min(options.caps?.[name] ?? defaultCap, budget));
    const whole = operator ? `Only the user can shorten the operator's ${name}` : undefined;
    const kept = truncateHeadTail(name, text, cap, whole);
    budget -= kept.length;
    files.push({
      name,
      source: operator ? 'operator' : 'workspace',
      text: kept,
      chars: text.length,
      truncated: kept !== text,
    });
  }
  return files;
}
