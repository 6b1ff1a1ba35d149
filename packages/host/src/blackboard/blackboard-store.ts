import { type Database, GroupCommit, transaction } from '@openlegion/infra/sqlite';
import {
  type BlackboardChange,
  type BlackboardEntry,
  isOpenLegionError,
  type MeshConfig,
  OpenLegionError,
} from '@openlegion/protocol';
import { OwnerRowCap } from '../server/index.js';
import { BlackboardUsage } from './blackboard-usage.js';

/** The largest value the blackboard keeps, as JSON text. */
export const MAX_VALUE_BYTES = 64 * 1024;

interface EntryRow {
  key: string;
  value: string;
  version: number;
  updated_by: string;
  updated_at: number;
  expires_at: number | null;
}

export interface AuditRecord {
  key: string;
  version: number;
  action: 'put' | 'delete' | 'expire';
  by: string;
  at: number;
}

/** What bounds each agent's share (mesh.yaml `limits`), and who counts as an agent. */
export interface BlackboardLimits {
  limits: Pick<
    MeshConfig['limits'],
    'blackboard_keys_per_agent' | 'blackboard_bytes_per_agent' | 'audit_rows_per_agent'
  >;
  /** Writers held to the quotas (the agents); the operator and the host are not. */
  isAgent: (writer: string) => boolean;
}

export interface PutOptions {
  /** Write only when the entry is at this version; 0: only when the key does not exist. */
  ifVersion?: number | undefined;
  /** The entry vanishes after this many seconds. */
  ttlSeconds?: number | undefined;
}

const toEntry = (row: EntryRow): BlackboardEntry => ({
  key: row.key,
  value: JSON.parse(row.value),
  version: row.version,
  updated_by: row.updated_by,
  updated_at: row.updated_at,
  expires_at: row.expires_at,
});

/**
 * The blackboard in mesh.db: JSON values with a version per key, compare-and-swap, TTL and an audit
 * trail. Writes are group-committed: those that arrive together share one transaction (each in its
 * own savepoint) and resolve once it is committed, so an acknowledged write is on disk (mesh.db runs
 * with synchronous FULL) at the cost of one sync per batch. Expired entries read as absent.
 *
 * Each agent's share is bounded: the keys it last wrote (until they are deleted or purged) may
 * hold at most `blackboard_keys_per_agent` keys and `blackboard_bytes_per_agent` bytes of JSON
 * (429 MESH_QUOTA_EXCEEDED past either), and it keeps its newest `audit_rows_per_agent` audit rows.
 */
export class BlackboardStore {
  readonly #db: Database;
  readonly #now: () => number;
  readonly #onChange: (change: BlackboardChange) => void;
  readonly #select;
  readonly #upsert;
  readonly #remove;
  readonly #audit;
  readonly #commits: GroupCommit;
  readonly #quota: BlackboardLimits;
  readonly #usage: BlackboardUsage;
  readonly #auditCap: OwnerRowCap;

  constructor(
    db: Database,
    now: () => number,
    quota: BlackboardLimits,
    onChange: (change: BlackboardChange) => void = () => {},
  ) {
    this.#db = db;
    this.#now = now;
    this.#onChange = onChange;
    this.#quota = quota;
    this.#commits = new GroupCommit(db);
    this.#usage = new BlackboardUsage(db);
    this.#auditCap = new OwnerRowCap(db, {
      table: 'blackboard_audit',
      ownerColumn: 'by',
      keep: quota.limits.audit_rows_per_agent,
    });
    this.#select = db.prepare<[string], EntryRow>('SELECT * FROM blackboard_entries WHERE key = ?');
    this.#upsert = db.prepare<EntryRow>(
      `INSERT INTO blackboard_entries (key, value, version, updated_by, updated_at, expires_at)
       VALUES (@key, @value, @version, @updated_by, @updated_at, @expires_at)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = excluded.version,
         updated_by = excluded.updated_by, updated_at = excluded.updated_at, expires_at = excluded.expires_at`,
    );
    this.#remove = db.prepare<[string]>('DELETE FROM blackboard_entries WHERE key = ?');
    this.#audit = db.prepare<AuditRecord>(
      'INSERT INTO blackboard_audit (key, version, action, by, at) VALUES (@key, @version, @action, @by, @at)',
    );
  }

  get(key: string): BlackboardEntry | undefined {
    const row = this.#live(key);
    return row && toEntry(row);
  }

  /** Write `value` under `key` as `by`; 409 MESH_VERSION_CONFLICT when `ifVersion` does not hold. */
  async put(key: string, value: unknown, by: string, options: PutOptions = {}): Promise<BlackboardEntry> {
    const text = JSON.stringify(value);
    if (text === undefined) throw new OpenLegionError('REQUEST_INVALID', 'value: must be JSON');
    const size = Buffer.byteLength(text);
    if (size > MAX_VALUE_BYTES) {
      throw new OpenLegionError(
        'MESH_VALUE_TOO_LARGE',
        `value: ${size} bytes of JSON for "${key}"; the blackboard keeps at most ${MAX_VALUE_BYTES}`,
        { details: { key, bytes: size, max: MAX_VALUE_BYTES } },
      );
    }
    const entry = await this.#committed(() => {
      const now = this.#now();
      const stored = this.#select.get(key);
      const current = stored && this.#isLive(stored) ? stored : undefined;
      checkVersion(key, current?.version ?? 0, options.ifVersion);
      if (this.#quota.isAgent(by)) this.#checkQuota(key, by, size, stored);
      const row: EntryRow = {
        key,
        value: text,
        version: (current?.version ?? 0) + 1,
        updated_by: by,
        updated_at: now,
        expires_at: options.ttlSeconds === undefined ? null : now + options.ttlSeconds * 1000,
      };
      this.#upsert.run(row);
      this.#audited({ key, version: row.version, action: 'put', by, at: now });
      this.#usage.replaced(stored, row);
      return { ...toEntry(row), value };
    });
    this.#onChange({ kind: 'put', key, version: entry.version, by, at: entry.updated_at, entry });
    return entry;
  }

  /** Delete `key`; 404 MESH_KEY_NOT_FOUND when absent, 409 when `ifVersion` does not hold. */
  async delete(key: string, by: string, ifVersion?: number): Promise<void> {
    const { version, at } = await this.#committed(() => {
      const now = this.#now();
      const current = this.#live(key);
      if (!current) throw notFound(key);
      checkVersion(key, current.version, ifVersion);
      this.#remove.run(key);
      this.#audited({ key, version: current.version, action: 'delete', by, at: now });
      this.#usage.replaced(current, undefined);
      return { version: current.version, at: now };
    });
    this.#onChange({ kind: 'delete', key, version, by, at });
  }

  /** Live entries whose key starts with `prefix`, in key order, those `visible` lets through. */
  list(prefix: string, limit: number, visible: (key: string) => boolean = () => true): BlackboardEntry[] {
    const rows = this.#db
      .prepare<{ prefix: string; now: number }, EntryRow>(
        `SELECT * FROM blackboard_entries
          WHERE key >= @prefix AND substr(key, 1, length(@prefix)) = @prefix
            AND (expires_at IS NULL OR expires_at > @now)
          ORDER BY key`,
      )
      .iterate({ prefix, now: this.#now() });
    const entries: BlackboardEntry[] = [];
    for (const row of rows) {
      if (!visible(row.key)) continue;
      entries.push(toEntry(row));
      if (entries.length >= limit) break;
    }
    return entries;
  }

  /** Who wrote `key`, version by version, newest last. */
  history(key: string, limit = 100): AuditRecord[] {
    return this.#db
      .prepare<[string, number], AuditRecord>(
        'SELECT key, version, action, by, at FROM (SELECT * FROM blackboard_audit WHERE key = ? ORDER BY id DESC LIMIT ?) ORDER BY id',
      )
      .all(key, limit);
  }

  /** Remove expired entries (audited as `expire`); returns how many went. */
  purgeExpired(): number {
    const now = this.#now();
    const expired = transaction(this.#db, () => {
      const rows = this.#db
        .prepare<[number], EntryRow>('SELECT * FROM blackboard_entries WHERE expires_at <= ?')
        .all(now);
      for (const row of rows) {
        this.#remove.run(row.key);
        this.#audit.run({ key: row.key, version: row.version, action: 'expire', by: 'host', at: now });
      }
      return rows;
    });
    for (const row of expired) this.#usage.replaced(row, undefined);
    for (const row of expired)
      this.#onChange({ kind: 'delete', key: row.key, version: row.version, by: 'host', at: now });
    return expired.length;
  }

  /** Every writer's audit rows past its newest `audit_rows_per_agent` (the periodic sweep). */
  pruneAudit(): number {
    return this.#auditCap.pruneAll();
  }

  /** The live-or-not-yet-purged keys `agent` last wrote, and their bytes of JSON. */
  usage(agent: string): { keys: number; bytes: number } {
    return this.#usage.of(agent);
  }

  #live(key: string): EntryRow | undefined {
    const row = this.#select.get(key);
    return row && this.#isLive(row) ? row : undefined;
  }

  #isLive(row: EntryRow): boolean {
    return row.expires_at === null || row.expires_at > this.#now();
  }

  #audited(record: AuditRecord): void {
    this.#audit.run(record);
    this.#auditCap.added(record.by);
  }

  /** Group-committed work; a batch whose commit failed leaves the usage counts to be read again. */
  async #committed<T>(work: () => T): Promise<T> {
    try {
      return await this.#commits.submit(work);
    } catch (error) {
      if (!isOpenLegionError(error)) this.#usage.recount();
      throw error;
    }
  }

  /** 429 MESH_QUOTA_EXCEEDED when writing `size` bytes under `key` takes `by` past a quota. */
  #checkQuota(key: string, by: string, size: number, stored: EntryRow | undefined): void {
    const { blackboard_keys_per_agent: maxKeys, blackboard_bytes_per_agent: maxBytes } = this.#quota.limits;
    const owned = stored?.updated_by === by;
    const usage = this.#usage.of(by);
    const keys = usage.keys + (owned ? 0 : 1);
    const bytes = usage.bytes + size - (owned && stored ? Buffer.byteLength(stored.value) : 0);
    const refuse = (what: string, field: string, used: number, max: number) =>
      new OpenLegionError(
        'MESH_QUOTA_EXCEEDED',
        `agent "${by}" may hold at most ${max} ${what} on the blackboard (${field}) and holds ${used}; ` +
          `writing "${key}" would make it ${what === 'keys' ? keys : bytes}: delete keys it no longer needs`,
        { details: { agent: by, key, field, used, max } },
      );
    if (keys > maxKeys) throw refuse('keys', 'limits.blackboard_keys_per_agent', usage.keys, maxKeys);
    if (bytes > maxBytes) throw refuse('bytes', 'limits.blackboard_bytes_per_agent', usage.bytes, maxBytes);
  }
}

function checkVersion(key: string, current: number, expected: number | undefined): void {
  if (expected === undefined || expected === current) return;
  throw new OpenLegionError(
    'MESH_VERSION_CONFLICT',
    current === 0
      ? `"${key}" does not exist (if_version ${expected})`
      : `"${key}" is at version ${current}, not ${expected}`,
    { details: { key, version: current, if_version: expected } },
  );
}

const notFound = (key: string) =>
  new OpenLegionError('MESH_KEY_NOT_FOUND', `no blackboard entry "${key}"`, { details: { key } });
