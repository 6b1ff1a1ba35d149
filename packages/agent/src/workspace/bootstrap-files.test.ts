import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BOOTSTRAP_TOTAL_CAP_CHARS, loadBootstrapFiles } from './bootstrap-files.js';
import { truncateHeadTail } from './head-tail-truncate.js';

describe('truncateHeadTail', () => {
  it('keeps a text within the cap as it is', () => {
    expect(truncateHeadTail('A.md', 'short', 100)).toBe('short');
  });

  it('keeps the first 70% and last 20% of the cap with a marker naming read_file', () => {
    const text = `${'h'.repeat(5_000)}${'Q'.repeat(5_000)}${'t'.repeat(5_000)}`;
    const cut = truncateHeadTail('USER.md', text, 4_000);
    expect([cut.length <= 4_000, cut.startsWith('h'.repeat(2_800)), cut.endsWith('t'.repeat(800))]).toEqual([
      true,
      true,
      true,
    ]);
    expect(cut).toContain('read_file("USER.md")');
    expect(cut).not.toContain('QQ');
  });
});

describe('loadBootstrapFiles', () => {
  let workspace: string;
  beforeEach(() => {
    workspace = mkdtempSync(join(tmpdir(), 'bootstrap-'));
  });
  afterEach(() => rmSync(workspace, { recursive: true, force: true }));

  it('caps each file: AGENTS.md 8K, SOUL.md 4K, USER.md 4K, MEMORY.md 16K', async () => {
    for (const name of ['AGENTS.md', 'SOUL.md', 'USER.md', 'MEMORY.md'])
      writeFileSync(join(workspace, name), 'z'.repeat(30_000));
    const files = await loadBootstrapFiles(workspace);
    expect(
      Object.fromEntries(
        files.map((file) => [file.name, file.text.length <= capOf(file.name) && file.truncated]),
      ),
    ).toEqual({
      'SOUL.md': true,
      'AGENTS.md': true,
      'USER.md': true,
      'MEMORY.md': true,
    });
  });

  it('keeps all files within the 40K total, counting what is reserved for the mesh.yaml soul', async () => {
    for (const name of ['AGENTS.md', 'SOUL.md', 'USER.md', 'MEMORY.md'])
      writeFileSync(join(workspace, name), 'z'.repeat(30_000));
    const files = await loadBootstrapFiles(workspace, { reserved: 20_000 });
    const total = files.reduce((sum, file) => sum + file.text.length, 0);
    expect(total).toBeLessThanOrEqual(BOOTSTRAP_TOTAL_CAP_CHARS - 20_000);
  });

  it('leaves out missing files and files holding only comments', async () => {
    writeFileSync(join(workspace, 'USER.md'), '<!-- fill me in -->\n');
    writeFileSync(join(workspace, 'MEMORY.md'), 'likes tea');
    expect(await loadBootstrapFiles(workspace)).toEqual([
      { name: 'MEMORY.md', text: 'likes tea', chars: 9, truncated: false },
    ]);
  });
});

function capOf(name: string): number {
  return (
    (
      { 'AGENTS.md': 8_000, 'SOUL.md': 4_000, 'USER.md': 4_000, 'MEMORY.md': 16_000 } as Record<
        string,
        number
      >
    )[name] ?? 0
  );
}
