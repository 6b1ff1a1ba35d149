import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOrCreateOperatorToken } from './index.js';

describe('loadOrCreateOperatorToken', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ol-operator-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates the token file with mode 0600 when it is missing', async () => {
    const dataDir = join(dir, 'data');
    const token = await loadOrCreateOperatorToken(dataDir);
    const file = join(dataDir, 'operator-token');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim()).toBe(token);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('returns the same token when read again', async () => {
    const first = await loadOrCreateOperatorToken(dir);
    expect(await loadOrCreateOperatorToken(dir)).toBe(first);
  });

  it('narrows a world-readable token file to 0600 and keeps its token', async () => {
    const file = join(dir, 'operator-token');
    await writeFile(file, 'existing-token\n');
    await chmod(file, 0o644);
    expect(await loadOrCreateOperatorToken(dir)).toBe('existing-token');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('replaces an empty token file with a new token', async () => {
    const file = join(dir, 'operator-token');
    await writeFile(file, '');
    const token = await loadOrCreateOperatorToken(dir);
    expect(token).not.toBe('');
    expect((await readFile(file, 'utf8')).trim()).toBe(token);
  });
});
