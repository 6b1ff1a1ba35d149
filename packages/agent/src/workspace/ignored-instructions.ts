import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { INSTRUCTION_FILES, type InstructionFile } from '@openlegion/protocol';
import { withoutComments } from './bootstrap-files.js';
import { INSTRUCTION_TEMPLATES } from './workspace-scaffold.js';

/**
 * The AGENTS.md and SOUL.md in the workspace that someone edited (not empty, not the template an
 * older version scaffolded). The prompt no longer reads them, so the agent says so once at boot:
 * an upgrading operator learns where their edits went and how to keep them.
 */
export async function ignoredInstructionFiles(workspace: string): Promise<InstructionFile[]> {
  const edited: InstructionFile[] = [];
  for (const file of INSTRUCTION_FILES) {
    const text = withoutComments(await readFile(join(workspace, file), 'utf8').catch(() => ''));
    if (text !== '' && text !== withoutComments(INSTRUCTION_TEMPLATES[file])) edited.push(file);
  }
  return edited;
}

/** The boot's one line about them, naming how the operator keeps their text. */
export function ignoredInstructionsMessage(agent: string, files: readonly InstructionFile[]): string {
  const keep = files
    .map(
      (file) =>
        `openlegion instructions ${agent} ${file} --from-workspace | openlegion instructions ${agent} ${file} --set -`,
    )
    .join('; ');
  return (
    `${files.join(' and ')} in the workspace ${files.length > 1 ? 'are' : 'is'} no longer read: the prompt uses ` +
    `the operator's copy held by the host, or the built-in template. To keep it: ${keep}`
  );
}
