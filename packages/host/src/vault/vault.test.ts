import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VAULT_FILE, VAULT_KEY_FILE, Vault } from './vault.js';
import { hostSecrets } from './vault-secrets.js';

const freshDir = () => mkdtempSync(path.join(tmpdir(), 'vault-'));
const SECRET = 'sk-live-0123456789abcdef';

describe('Vault', () => {
  it('keeps values sealed at rest (names too), with a fresh nonce per write, files 0600', () => {
    const dir = freshDir();
    const vault = new Vault({ dataDir: dir });
    vault.set('OPENAI_API_KEY', SECRET);
    const first = readFileSync(path.join(dir, VAULT_FILE), 'utf8');
    expect(first).not.toContain(SECRET);
    expect(first).not.toContain('OPENAI_API_KEY');
    vault.set('OPENAI_API_KEY', SECRET);
    const second = JSON.parse(readFileSync(path.join(dir, VAULT_FILE), 'utf8'));
    expect(second.nonce).not.toBe(JSON.parse(first).nonce);
    expect(statSync(path.join(dir, VAULT_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dir, VAULT_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(new Vault({ dataDir: dir }).get('OPENAI_API_KEY')).toBe(SECRET);
  });

  it('lists names and when they were set, removes, and refuses bad names and empty values', () => {
    const vault = new Vault({ dataDir: freshDir() });
    vault.set('B_TOKEN', 'b', new Date('2026-11-01T00:00:00Z'));
    vault.set('A_KEY', 'a', new Date('2026-11-02T00:00:00Z'));
    expect(vault.list()).toEqual([
      { name: 'A_KEY', set_at: '2026-11-02T00:00:00.000Z' },
      { name: 'B_TOKEN', set_at: '2026-11-01T00:00:00.000Z' },
    ]);
    expect(vault.remove('A_KEY')).toBe(true);
    expect(vault.remove('A_KEY')).toBe(false);
    expect(() => vault.set('not a name', 'x')).toThrow('"not a name" is not a vault name');
    expect(() => vault.set('EMPTY', '')).toThrow('the value is empty');
  });

  it('refuses a wrong key with a clear error and leaves the file as it was', () => {
    const dir = freshDir();
    new Vault({ dataDir: dir, env: { OPENLEGION_VAULT_KEY: 'right horse battery' } }).set('K', SECRET);
    const before = readFileSync(path.join(dir, VAULT_FILE), 'utf8');
    const wrong = new Vault({ dataDir: dir, env: { OPENLEGION_VAULT_KEY: 'wrong horse' } });
    expect(() => wrong.get('K')).toThrow(expect.objectContaining({ code: 'CONFIG_VAULT_KEY_WRONG' }));
    expect(() => wrong.set('K2', 'x')).toThrow(expect.objectContaining({ code: 'CONFIG_VAULT_KEY_WRONG' }));
    expect(readFileSync(path.join(dir, VAULT_FILE), 'utf8')).toBe(before);
    expect(new Vault({ dataDir: dir, env: { OPENLEGION_VAULT_KEY: 'right horse battery' } }).get('K')).toBe(
      SECRET,
    );
    writeFileSync(path.join(dir, VAULT_FILE), 'not json');
    expect(() => new Vault({ dataDir: dir }).get('K')).toThrow(
      expect.objectContaining({ code: 'CONFIG_VAULT_UNREADABLE' }),
    );
  });

  it('is what vault: references resolve to on the host, and never the environment', () => {
    const dir = freshDir();
    const secrets = hostSecrets({
      dataDir: dir,
      env: { OPENAI_API_KEY: 'from-env', PORT_TOKEN: 'env-value' },
    });
    expect(secrets.lookup({ scheme: 'vault', name: 'OPENAI_API_KEY' })).toBeUndefined();
    expect(secrets.howToSet({ scheme: 'vault', name: 'OPENAI_API_KEY' })).toBe(
      'store it with: openlegion vault set OPENAI_API_KEY',
    );
    secrets.vault.set('OPENAI_API_KEY', SECRET);
    expect(secrets.lookup({ scheme: 'vault', name: 'OPENAI_API_KEY' })).toBe(SECRET);
    expect(secrets.lookup({ scheme: 'env', name: 'PORT_TOKEN' })).toBe('env-value');
  });
});
