import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';

export type { Database } from 'better-sqlite3';

const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

export interface OpenDatabaseOptions {
  /** How long a writer waits for another connection's lock before failing. */
  busyTimeoutMs?: number;
  /**
   * `FULL`: each commit reaches the disk before it returns (an acknowledged write survives a power
   * cut). `NORMAL` (default): survives a crash of the process, not of the machine; faster.
   */
  synchronous?: 'NORMAL' | 'FULL';
}

/**
 * Open (or create, with its directory) a SQLite file in WAL mode with foreign keys on and a busy
 * timeout, so that concurrent writers wait instead of failing. `':memory:'` works for tests.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS}`);
    db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Run `work` in one `BEGIN IMMEDIATE` transaction (the write lock is taken up front, so two
 * connections never deadlock upgrading read locks) and return its result. Nested calls join the
 * outer transaction as a savepoint. A throw rolls everything back.
 */
export function transaction<T>(db: Database, work: () => T): T {
  return db.transaction(work).immediate();
}
