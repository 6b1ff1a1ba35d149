import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OpenLegionError } from '@openlegion/protocol';

/** The vault file and its key file in the data dir. */
export const VAULT_FILE = 'vault';
export const VAULT_KEY_FILE = 'vault.key';
/** The environment variable that, when set, holds the vault key (any passphrase). */
export const VAULT_KEY_ENV = 'OPENLEGION_VAULT_KEY';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SCRYPT = { N: 2 ** 14, r: 8, p: 1 };

interface VaultEntry {
  value: string;
  set_at: string;
}

/** What `vault list` shows: names and when they were set, never values. */
export interface VaultListing {
  name: string;
  set_at: string;
}

/** The file on disk: only the salt and the sealed entries; names are sealed too. */
interface SealedFile {
  format: 'openlegion-vault';
  version: 1;
  salt: string;
  nonce: string;
  tag: string;
  ciphertext: string;
}

/**
 * The host's encrypted vault: `<data_dir>/vault`, AES-256-GCM with a fresh nonce on every write, the
 * whole entry map sealed (names included). The key comes from `OPENLEGION_VAULT_KEY`, or from
 * `<data_dir>/vault.key`, created (mode 0600) with 32 random bytes on first use; either is
 * stretched with scrypt and the file's salt. A wrong key is refused with a clear error, never read
 * as garbage. Writes go to a temporary file first, then replace the vault (mode 0600) at once.
 */
export class Vault {
  readonly #file: string;
  readonly #keyFile: string;
  readonly #keyFromEnv: string | undefined;
  #cache: { mtimeMs: number; entries: Map<string, VaultEntry> } | undefined;

  constructor(options: { dataDir: string; env?: NodeJS.ProcessEnv }) {
    this.#file = path.join(options.dataDir, VAULT_FILE);
    this.#keyFile = path.join(options.dataDir, VAULT_KEY_FILE);
    this.#keyFromEnv = options.env?.[VAULT_KEY_ENV] || undefined;
  }

  get file(): string {
    return this.#file;
  }

  /** The value of `name`, or undefined. Re-reads the file when it changed since the last read. */
  get(name: string): string | undefined {
    return this.#read().get(name)?.value;
  }

  list(): VaultListing[] {
    return [...this.#read().entries()]
      .map(([name, entry]) => ({ name, set_at: entry.set_at }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  set(name: string, value: string, now = new Date()): void {
    checkName(name);
    if (value.length === 0) throw new OpenLegionError('REQUEST_INVALID', `${name}: the value is empty`);
    const entries = new Map(this.#read());
    entries.set(name, { value, set_at: now.toISOString() });
    this.#write(entries);
  }

  /** Remove `name`; false when it was not there. */
  remove(name: string): boolean {
    const entries = new Map(this.#read());
    if (!entries.delete(name)) return false;
    this.#write(entries);
    return true;
  }

  #read(): Map<string, VaultEntry> {
    if (!existsSync(this.#file)) return new Map();
    const { mtimeMs } = statSync(this.#file);
    if (this.#cache?.mtimeMs === mtimeMs) return this.#cache.entries;
    let sealed: SealedFile;
    try {
      sealed = JSON.parse(readFileSync(this.#file, 'utf8')) as SealedFile;
      if (sealed.format !== 'openlegion-vault' || sealed.version !== 1) throw new Error('unknown format');
    } catch (error) {
      throw new OpenLegionError(
        'CONFIG_VAULT_UNREADABLE',
        `${this.#file} is not a vault this version can read (${(error as Error).message}); nothing was changed`,
      );
    }
    const key = this.#key(Buffer.from(sealed.salt, 'base64'), false);
    let plain: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.nonce, 'base64'));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      plain = Buffer.concat([
        decipher.update(Buffer.from(sealed.ciphertext, 'base64')),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new OpenLegionError(
        'CONFIG_VAULT_KEY_WRONG',
        `the vault key does not open ${this.#file} (${this.#keyFromEnv ? `${VAULT_KEY_ENV} is set` : `key file ${this.#keyFile}`}): use the key it was written with; nothing was changed`,
      );
    }
    const entries = new Map(Object.entries(JSON.parse(plain) as Record<string, VaultEntry>));
    this.#cache = { mtimeMs, entries };
    return entries;
  }

  #write(entries: Map<string, VaultEntry>): void {
    mkdirSync(path.dirname(this.#file), { recursive: true, mode: 0o700 });
    const salt = randomBytes(16);
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key(salt, true), nonce);
    const ciphertext = Buffer.concat([
      cipher.update(JSON.stringify(Object.fromEntries(entries)), 'utf8'),
      cipher.final(),
    ]);
    const sealed: SealedFile = {
      format: 'openlegion-vault',
      version: 1,
      salt: salt.toString('base64'),
      nonce: nonce.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      ciphertext: ciphertext.toString('base64'),
    };
    const temporary = `${this.#file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(sealed)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.#file);
    this.#cache = undefined;
  }

  /** The AES key for a file salt, from the env passphrase or the key file (created when writing). */
  #key(salt: Buffer, creating: boolean): Buffer {
    let material = this.#keyFromEnv;
    if (material === undefined) {
      if (!existsSync(this.#keyFile)) {
        if (!creating)
          throw new OpenLegionError(
            'CONFIG_VAULT_KEY_WRONG',
            `${this.#file} exists but its key does not: set ${VAULT_KEY_ENV} or restore ${this.#keyFile}`,
          );
        mkdirSync(path.dirname(this.#keyFile), { recursive: true, mode: 0o700 });
        writeFileSync(this.#keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
      }
      material = readFileSync(this.#keyFile, 'utf8').trim();
    }
    return scryptSync(material, salt, 32, SCRYPT);
  }
}

function checkName(name: string): void {
  if (!NAME.test(name))
    throw new OpenLegionError(
      'REQUEST_INVALID',
      `"${name}" is not a vault name: use letters, digits and _ (like OPENAI_API_KEY)`,
    );
}
