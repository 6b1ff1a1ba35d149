import type { Database } from '@openlegion/infra/sqlite';
import type { SpawnedAgent, SpawnState } from '@openlegion/protocol';

/** The spawn schema (feature `spawn`). Append only: never edit a step that has shipped. */
export const SPAWN_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE temporary_agents (
    name TEXT PRIMARY KEY,
    template TEXT NOT NULL,
    spawner TEXT,
    origin TEXT NOT NULL CHECK (origin IN ('agent', 'operator', 'cron')),
    cron_job TEXT,
    task TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('starting', 'running', 'done', 'failed', 'expired')),
    result TEXT,
    item_id INTEGER,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    ended_at INTEGER
  ) STRICT;
  CREATE INDEX temporary_agents_live ON temporary_agents (ended_at, spawner);
  `,
  // The squad whose memory a run starts with and adds its lessons to (null: none).
  'ALTER TABLE temporary_agents ADD COLUMN squad TEXT;',
];

/** Ended runs are kept this long for `spawned_agents` and `openlegion spawn list`, then pruned. */
const KEEP_ENDED_MS = 7 * 24 * 3_600_000;

/** One temporary agent as persisted. */
export interface TemporaryAgentRow {
  name: string;
  template: string;
  spawner: string | null;
  origin: SpawnedAgent['origin'];
  cron_job: string | null;
  task: string;
  squad: string | null;
  state: SpawnState;
  result: string | null;
  item_id: number | null;
  created_at: number;
  expires_at: number;
  ended_at: number | null;
}

/** The temporary agents in mesh.db: live ones (not ended) and the results of ended ones. */
export class SpawnRepository {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  insert(row: Omit<TemporaryAgentRow, 'state' | 'result' | 'item_id' | 'ended_at'>): void {
    this.#db
      .prepare('DELETE FROM temporary_agents WHERE ended_at IS NOT NULL AND ended_at < ?')
      .run(row.created_at - KEEP_ENDED_MS);
    this.#db
      .prepare(
        `INSERT INTO temporary_agents (name, template, spawner, origin, cron_job, task, squad, state, created_at, expires_at)
         VALUES (@name, @template, @spawner, @origin, @cron_job, @task, @squad, 'starting', @created_at, @expires_at)`,
      )
      .run(row);
  }

  get(name: string): TemporaryAgentRow | undefined {
    return this.#db
      .prepare<[string], TemporaryAgentRow>('SELECT * FROM temporary_agents WHERE name = ?')
      .get(name);
  }

  /** Newest first; only `spawner`'s when given. */
  list(spawner?: string): TemporaryAgentRow[] {
    return spawner === undefined
      ? this.#db
          .prepare<[], TemporaryAgentRow>('SELECT * FROM temporary_agents ORDER BY created_at DESC, name')
          .all()
      : this.#db
          .prepare<[string], TemporaryAgentRow>(
            'SELECT * FROM temporary_agents WHERE spawner = ? ORDER BY created_at DESC, name',
          )
          .all(spawner);
  }

  /** Those not ended (starting or running). */
  live(): TemporaryAgentRow[] {
    return this.#db
      .prepare<[], TemporaryAgentRow>(
        'SELECT * FROM temporary_agents WHERE ended_at IS NULL ORDER BY created_at',
      )
      .all();
  }

  /** How many run: in the fleet, or of one spawner. */
  liveCount(spawner?: string): number {
    const row =
      spawner === undefined
        ? this.#db
            .prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM temporary_agents WHERE ended_at IS NULL')
            .get()
        : this.#db
            .prepare<[string], { n: number }>(
              'SELECT COUNT(*) AS n FROM temporary_agents WHERE ended_at IS NULL AND spawner = ?',
            )
            .get(spawner);
    return row?.n ?? 0;
  }

  /** Its task's lane item (cancelled when the run ends another way). */
  setItem(name: string, itemId: number): void {
    this.#db.prepare('UPDATE temporary_agents SET item_id = ? WHERE name = ?').run(itemId, name);
  }

  /** It reported ready and works on its task. */
  running(name: string): void {
    this.#db
      .prepare("UPDATE temporary_agents SET state = 'running' WHERE name = ? AND ended_at IS NULL")
      .run(name);
  }

  /** End a run once: false when it had already ended (a late result after its TTL, say). */
  finish(
    name: string,
    state: Exclude<SpawnState, 'starting' | 'running'>,
    result: string,
    now: number,
  ): boolean {
    return (
      this.#db
        .prepare(
          'UPDATE temporary_agents SET state = ?, result = ?, ended_at = ? WHERE name = ? AND ended_at IS NULL',
        )
        .run(state, result, now, name).changes > 0
    );
  }
}
