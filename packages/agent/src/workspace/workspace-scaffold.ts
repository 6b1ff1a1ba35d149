import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InstructionFile } from '@openlegion/protocol';

/**
 * The files a new workspace starts with. Comment-only text is not injected into the prompt, and a
 * HEARTBEAT.md without anything but comments and headings counts as empty, so a fresh agent's
 * heartbeats cost nothing until someone writes a checklist. AGENTS.md and SOUL.md are not among
 * them: the operator's copies live on the host (see {@link INSTRUCTION_TEMPLATES}).
 */
export const WORKSPACE_TEMPLATES: Readonly<Record<string, string>> = {
  'USER.md': `<!-- What this agent knows about its user: name, preferences, how they like answers. -->
`,
  'MEMORY.md': `<!-- Long-term notes the agent keeps for itself (injected up to 16K characters). -->
`,
  'HEARTBEAT.md': `<!-- A checklist for heartbeats. While this file holds only comments and headings, heartbeats
     skip the LLM unless messages or events are pending. -->
`,
};

/**
 * What the prompt carries for AGENTS.md and SOUL.md while the host holds no copy written by the
 * operator. Built in, never read from the workspace: anything the agent runs can write there.
 */
export const INSTRUCTION_TEMPLATES: Readonly<Record<InstructionFile, string>> = {
  'AGENTS.md': `# Operating instructions
- Work in small, checked steps; use tools to look before you change anything.
- Save durable facts with memory_save; note what happened today in memory/YYYY-MM-DD.md.
- Say plainly when you are unsure or when something failed.
`,
  'SOUL.md': `<!-- Who this agent is: voice, values, boundaries. mesh.yaml "soul" is added after this file. -->
`,
};

/**
 * Create the workspace, its `memory/` folder for daily logs, and every template file that is
 * missing. A file that exists is never touched (exclusive create), whatever its content.
 *
 * @returns the names of the files created.
 */
export async function scaffoldWorkspace(workspace: string): Promise<string[]> {
  await mkdir(join(workspace, 'memory'), { recursive: true });
  const created: string[] = [];
  for (const [name, text] of Object.entries(WORKSPACE_TEMPLATES)) {
    try {
      await writeFile(join(workspace, name), text, { flag: 'wx' });
      created.push(name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return created;
}
