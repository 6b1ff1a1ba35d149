import { OpenLegionError } from '@openlegion/protocol';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { AgentRunsRepository } from './agent-runs-repository.js';
import { AgentsRepository } from './agents-repository.js';
import { MIGRATIONS } from './migrations.js';

const BUSY_TIMEOUT_MS = 5_000;

/** The host's SQLite store (`<data_dir>/mesh.db`). */
export interface Store {
  readonly agents: AgentsRepository;
  readonly runs: AgentRunsRepository;
  /** How many migrations the database has had applied. */
  schemaVersion(): number;
  close(): void;
}

/**
 * Open (or create) the store at `path` (`':memory:'` for tests): WAL, foreign keys on, pending
 * migrations applied in one transaction each. Re-opening an up-to-date database changes nothing.
 */
export function openStore(path: string, migrations: readonly string[] = MIGRATIONS): Store {
  const db = new BetterSqlite3(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    migrate(db, migrations);
  } catch (error) {
    db.close();
    throw error;
  }
  return {
    agents: new AgentsRepository(db),
    runs: new AgentRunsRepository(db),
    schemaVersion: () => userVersion(db),
    close: () => db.close(),
  };
}

function migrate(db: Database, migrations: readonly string[]): void {
  const applied = userVersion(db);
  if (applied > migrations.length) {
    throw new OpenLegionError(
      'INTERNAL',
      `${db.name} has schema version ${applied}, newer than this host knows (${migrations.length}); upgrade openlegion`,
    );
  }
  migrations.slice(applied).forEach((sql, offset) => {
    const version = applied + offset + 1;
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${version}`);
    })();
  });
}

function userVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}
