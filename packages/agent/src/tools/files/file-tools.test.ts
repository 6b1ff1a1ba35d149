import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, makeTempDir, toolNamed } from '../../../test/tool-harness.js';
import { createFileTools } from './file-tools.js';
import { READ_FILE_MAX_CHARS } from './read-file-tool.js';

const tools = createFileTools();
const call = (name: string, args: unknown) => callTool(toolNamed(tools, name), args, { workspace });

let workspace: string;
let outside: string;
let cleanup: () => void;

beforeEach(() => {
  const root = makeTempDir();
  workspace = path.join(root.dir, 'workspace');
  outside = path.join(root.dir, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
  cleanup = root.remove;
});
afterEach(() => cleanup());

describe('read_file', () => {
  it('reads a file with a header naming the lines shown', async () => {
    writeFileSync(path.join(workspace, 'notes.md'), 'one\ntwo\nthree\n');
    const { text, isError } = await call('read_file', { path: 'notes.md' });
    expect(isError).toBe(false);
    expect(text).toBe('notes.md (lines 1-3 of 3)\none\ntwo\nthree');
  });

  it('reads from offset for limit lines and says where to continue', async () => {
    writeFileSync(
      path.join(workspace, 'long.txt'),
      Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n'),
    );
    const { text } = await call('read_file', { path: 'long.txt', offset: 10, limit: 3 });
    expect(text).toContain('lines 10-12 of 100');
    expect(text).toContain('line 10\nline 11\nline 12');
    expect(text).toContain('continue with offset=13');
  });

  it('cuts a read at the character cap with an honest note', async () => {
    const line = 'x'.repeat(999);
    writeFileSync(path.join(workspace, 'big.txt'), Array.from({ length: 200 }, () => line).join('\n'));
    const { text } = await call('read_file', { path: 'big.txt' });
    expect(text.length).toBeLessThan(READ_FILE_MAX_CHARS + 300);
    expect(text).toMatch(/cut at 50000 characters; continue with offset=51/);
  });

  it('refuses a binary file and a directory with a clear error', async () => {
    writeFileSync(path.join(workspace, 'blob.bin'), Buffer.from([1, 0, 2, 3]));
    mkdirSync(path.join(workspace, 'sub'));
    expect(await call('read_file', { path: 'blob.bin' })).toMatchObject({
      isError: true,
      text: expect.stringContaining('binary'),
    });
    expect(await call('read_file', { path: 'sub' })).toMatchObject({
      isError: true,
      text: expect.stringContaining('list_files'),
    });
  });

  it('strips invisible characters and says so', async () => {
    writeFileSync(path.join(workspace, 'odd.txt'), 'pay\u202Eme\u200B');
    const { text } = await call('read_file', { path: 'odd.txt' });
    expect(text).toContain('payme');
    expect(text).toContain('2 invisible');
  });
});

describe('workspace confinement', () => {
  it('refuses .. segments and absolute paths', async () => {
    const up = await call('read_file', { path: '../outside/secret.txt' });
    const absolute = await call('read_file', { path: path.join(outside, 'secret.txt') });
    expect(up).toMatchObject({ isError: true, text: expect.stringContaining('..') });
    expect(absolute).toMatchObject({ isError: true, text: expect.stringContaining('absolute') });
  });

  it('refuses to read or write through a symlink that points outside the workspace', async () => {
    symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'link.txt'));
    symlinkSync(outside, path.join(workspace, 'out'));
    const read = await call('read_file', { path: 'link.txt' });
    const write = await call('write_file', { path: 'out/new.txt', content: 'x' });
    const edit = await call('edit_file', { path: 'link.txt', old_string: 'top', new_string: 'no' });
    for (const result of [read, write, edit])
      expect(result).toMatchObject({
        isError: true,
        text: expect.stringContaining('outside your workspace'),
      });
    expect(read.text).not.toContain('top secret');
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  it('refuses to create a file through a dangling symlink aimed outside', async () => {
    symlinkSync(path.join(outside, 'planted.txt'), path.join(workspace, 'dangling.txt'));
    const result = await call('write_file', { path: 'dangling.txt', content: 'x' });
    expect(result.isError).toBe(true);
    expect(() => readFileSync(path.join(outside, 'planted.txt'))).toThrow();
  });

  it('allows symlinks that stay inside the workspace', async () => {
    writeFileSync(path.join(workspace, 'real.txt'), 'inside');
    symlinkSync(path.join(workspace, 'real.txt'), path.join(workspace, 'alias.txt'));
    expect(await call('read_file', { path: 'alias.txt' })).toMatchObject({
      isError: false,
      text: expect.stringContaining('inside'),
    });
  });

  it('keeps AGENTS.md and SOUL.md read-only, also through a link', async () => {
    writeFileSync(path.join(workspace, 'AGENTS.md'), 'rules');
    writeFileSync(path.join(workspace, 'SOUL.md'), 'persona');
    symlinkSync(path.join(workspace, 'SOUL.md'), path.join(workspace, 'soul-link.md'));
    const write = await call('write_file', { path: 'AGENTS.md', content: 'no rules' });
    const edit = await call('edit_file', {
      path: 'soul-link.md',
      old_string: 'persona',
      new_string: 'other',
    });
    expect(write).toMatchObject({ isError: true, text: expect.stringContaining('AGENTS.md is read-only') });
    expect(edit).toMatchObject({ isError: true, text: expect.stringContaining('SOUL.md is read-only') });
    expect(readFileSync(path.join(workspace, 'AGENTS.md'), 'utf8')).toBe('rules');
    expect((await call('read_file', { path: 'AGENTS.md' })).text).toContain('rules');
  });
});

describe('hard links', () => {
  const refusal = (file: string) =>
    `${file} has 2 hard links: another name shares its content, and writing it would change that file too, so it is refused. Write a new file instead.`;

  it('refuses write_file, append and edit_file through a hard link to AGENTS.md, and leaves it as it was', async () => {
    writeFileSync(path.join(workspace, 'AGENTS.md'), 'rules');
    linkSync(path.join(workspace, 'AGENTS.md'), path.join(workspace, 'notes.md'));
    const write = await call('write_file', { path: 'notes.md', content: 'no rules' });
    const append = await call('write_file', { path: 'notes.md', content: ' and more', append: true });
    const edit = await call('edit_file', { path: 'notes.md', old_string: 'rules', new_string: 'anarchy' });
    expect([write, append, edit]).toEqual([
      { isError: true, text: refusal('notes.md') },
      { isError: true, text: refusal('notes.md') },
      { isError: true, text: refusal('notes.md') },
    ]);
    expect(readFileSync(path.join(workspace, 'AGENTS.md'), 'utf8')).toBe('rules');
  });

  it('refuses a hard link to a file outside the workspace too', async () => {
    linkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'copy.txt'));
    const result = await call('write_file', { path: 'copy.txt', content: 'overwritten' });
    expect([result.isError, readFileSync(path.join(outside, 'secret.txt'), 'utf8')]).toEqual([
      true,
      'top secret',
    ]);
  });

  it('still writes and edits files with one name', async () => {
    await call('write_file', { path: 'one.md', content: 'alpha beta' });
    const edit = await call('edit_file', { path: 'one.md', old_string: 'beta', new_string: 'gamma' });
    expect([edit.isError, readFileSync(path.join(workspace, 'one.md'), 'utf8')]).toEqual([
      false,
      'alpha gamma',
    ]);
  });
});

describe('write_file', () => {
  it('creates missing folders, replaces and appends', async () => {
    expect((await call('write_file', { path: 'a/b/c.txt', content: 'one\n' })).text).toBe(
      'created a/b/c.txt (4 bytes)',
    );
    await call('write_file', { path: 'a/b/c.txt', content: 'two\n', append: true });
    expect(readFileSync(path.join(workspace, 'a/b/c.txt'), 'utf8')).toBe('one\ntwo\n');
    expect((await call('write_file', { path: 'a/b/c.txt', content: 'new' })).text).toContain('replaced');
    expect(readFileSync(path.join(workspace, 'a/b/c.txt'), 'utf8')).toBe('new');
  });
});

describe('edit_file', () => {
  beforeEach(() => writeFileSync(path.join(workspace, 'code.ts'), 'let a = 1;\nlet b = 2;\nlet a2 = 1;\n'));

  it('replaces one unique occurrence and names its line', async () => {
    const { text, isError } = await call('edit_file', {
      path: 'code.ts',
      old_string: 'b = 2',
      new_string: 'b = 3',
    });
    expect(isError).toBe(false);
    expect(text).toContain('line 2');
    expect(readFileSync(path.join(workspace, 'code.ts'), 'utf8')).toBe(
      'let a = 1;\nlet b = 3;\nlet a2 = 1;\n',
    );
  });

  it('fails clearly when the text is missing or occurs more than once, and changes nothing', async () => {
    const missing = await call('edit_file', { path: 'code.ts', old_string: 'let c', new_string: 'x' });
    const twice = await call('edit_file', { path: 'code.ts', old_string: '= 1;', new_string: '= 9;' });
    expect(missing).toMatchObject({ isError: true, text: expect.stringContaining('not found') });
    expect(twice).toMatchObject({
      isError: true,
      text: expect.stringContaining('occurs 2 times in code.ts (lines 1, 3)'),
    });
    expect(readFileSync(path.join(workspace, 'code.ts'), 'utf8')).toBe(
      'let a = 1;\nlet b = 2;\nlet a2 = 1;\n',
    );
  });

  it('replaces every occurrence with replace_all', async () => {
    const { text } = await call('edit_file', {
      path: 'code.ts',
      old_string: '= 1;',
      new_string: '= 9;',
      replace_all: true,
    });
    expect(text).toContain('2 replacements');
    expect(readFileSync(path.join(workspace, 'code.ts'), 'utf8')).toBe(
      'let a = 9;\nlet b = 2;\nlet a2 = 9;\n',
    );
  });
});

describe('list_files', () => {
  beforeEach(() => {
    mkdirSync(path.join(workspace, 'docs/deep'), { recursive: true });
    mkdirSync(path.join(workspace, 'node_modules/pkg'), { recursive: true });
    writeFileSync(path.join(workspace, 'docs/a.md'), 'a');
    writeFileSync(path.join(workspace, 'docs/deep/b.md'), 'b');
    writeFileSync(path.join(workspace, 'node_modules/pkg/c.md'), 'c');
    writeFileSync(path.join(workspace, 'top.txt'), 'hello');
  });

  it('lists one folder with sizes, folders marked with a slash', async () => {
    const { text } = await call('list_files', {});
    expect(text).toBe('your workspace:\ndocs/\nnode_modules/\ntop.txt (5 B)');
  });

  it('matches a glob recursively, skipping node_modules, and caps the list', async () => {
    const { text } = await call('list_files', { pattern: '**/*.md' });
    expect(text).toContain('docs/a.md');
    expect(text).toContain('docs/deep/b.md');
    expect(text).not.toContain('c.md');
    const capped = await call('list_files', { pattern: '**', limit: 2 });
    expect(capped.text).toMatch(/\[\d+ more not shown/);
  });

  it('does not descend into a symlinked folder outside the workspace', async () => {
    symlinkSync(outside, path.join(workspace, 'out'));
    const { text } = await call('list_files', { pattern: '**' });
    expect(text).toContain('out (symlink)');
    expect(text).not.toContain('secret.txt');
  });
});

describe('grep_files', () => {
  beforeEach(() => {
    mkdirSync(path.join(workspace, 'src'));
    writeFileSync(path.join(workspace, 'src/a.ts'), 'const x = 1;\n// TODO: fix\n');
    writeFileSync(path.join(workspace, 'src/b.md'), 'todo later\n');
  });

  it('returns path:line: text for each match', async () => {
    const { text } = await call('grep_files', { pattern: 'TODO' });
    expect(text).toContain('src/a.ts:2: // TODO: fix');
    expect(text).not.toContain('b.md');
  });

  it('filters by glob and matches either case on request', async () => {
    const { text } = await call('grep_files', { pattern: 'todo', ignore_case: true, glob: '**/*.md' });
    expect(text).toBe('1 matches in 1 files searched:\nsrc/b.md:1: todo later');
  });

  it('reports an invalid regular expression as an error the model can fix', async () => {
    const { text, isError } = await call('grep_files', { pattern: '(unclosed' });
    expect(isError).toBe(true);
    expect(text).toContain('not a valid regular expression');
  });
});
