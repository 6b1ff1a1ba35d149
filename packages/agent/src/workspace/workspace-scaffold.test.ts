import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ignoredInstructionFiles, ignoredInstructionsMessage } from './ignored-instructions.js';
import { INSTRUCTION_TEMPLATES, scaffoldWorkspace } from './workspace-scaffold.js';

describe('scaffoldWorkspace', () => {
  let workspace: string;
  beforeEach(() => {
    workspace = join(mkdtempSync(join(tmpdir(), 'scaffold-')), 'workspace');
  });
  afterEach(() => rmSync(join(workspace, '..'), { recursive: true, force: true }));

  it("creates the agent's own files and the daily log folder, not AGENTS.md or SOUL.md (the host holds those)", async () => {
    expect(await scaffoldWorkspace(workspace)).toEqual(['USER.md', 'MEMORY.md', 'HEARTBEAT.md']);
    expect(readFileSync(join(workspace, 'USER.md'), 'utf8')).toContain('What this agent knows');
  });

  it("never overwrites a user's file, even an empty one", async () => {
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'MEMORY.md'), 'My own notes.');
    writeFileSync(join(workspace, 'USER.md'), '');
    const created = await scaffoldWorkspace(workspace);
    expect([
      created,
      readFileSync(join(workspace, 'MEMORY.md'), 'utf8'),
      readFileSync(join(workspace, 'USER.md'), 'utf8'),
    ]).toEqual([['HEARTBEAT.md'], 'My own notes.', '']);
  });

  it('creates nothing the second time', async () => {
    await scaffoldWorkspace(workspace);
    expect(await scaffoldWorkspace(workspace)).toEqual([]);
  });
});

describe('ignoredInstructionFiles', () => {
  let workspace: string;
  beforeEach(() => {
    workspace = mkdtempSync(join(tmpdir(), 'ignored-'));
  });
  afterEach(() => rmSync(workspace, { recursive: true, force: true }));

  it('names an edited AGENTS.md or SOUL.md left in the workspace, not the templates an older version wrote', async () => {
    writeFileSync(join(workspace, 'AGENTS.md'), INSTRUCTION_TEMPLATES['AGENTS.md']);
    writeFileSync(join(workspace, 'SOUL.md'), 'Mine.');
    expect(await ignoredInstructionFiles(workspace)).toEqual(['SOUL.md']);
  });

  it('says how the operator keeps the text', () => {
    expect(ignoredInstructionsMessage('a', ['AGENTS.md'])).toBe(
      "AGENTS.md in the workspace is no longer read: the prompt uses the operator's copy held by the host, or the " +
        'built-in template. To keep it: openlegion instructions a AGENTS.md --from-workspace | openlegion instructions a AGENTS.md --set -',
    );
  });
});
