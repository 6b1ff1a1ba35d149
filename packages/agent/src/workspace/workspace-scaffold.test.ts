import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scaffoldWorkspace } from './workspace-scaffold.js';

describe('scaffoldWorkspace', () => {
  let workspace: string;
  beforeEach(() => {
    workspace = join(mkdtempSync(join(tmpdir(), 'scaffold-')), 'workspace');
  });
  afterEach(() => rmSync(join(workspace, '..'), { recursive: true, force: true }));

  it('creates the five workspace files and the daily log folder', async () => {
    expect(await scaffoldWorkspace(workspace)).toEqual([
      'AGENTS.md',
      'SOUL.md',
      'USER.md',
      'MEMORY.md',
      'HEARTBEAT.md',
    ]);
    expect(readFileSync(join(workspace, 'AGENTS.md'), 'utf8')).toContain('Operating instructions');
  });

  it("never overwrites a user's file, even an empty one", async () => {
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'SOUL.md'), 'My own soul.');
    writeFileSync(join(workspace, 'USER.md'), '');
    const created = await scaffoldWorkspace(workspace);
    expect([
      created,
      readFileSync(join(workspace, 'SOUL.md'), 'utf8'),
      readFileSync(join(workspace, 'USER.md'), 'utf8'),
    ]).toEqual([['AGENTS.md', 'MEMORY.md', 'HEARTBEAT.md'], 'My own soul.', '']);
  });

  it('creates nothing the second time', async () => {
    await scaffoldWorkspace(workspace);
    expect(await scaffoldWorkspace(workspace)).toEqual([]);
  });
});
