import type { Database } from '@openlegion/infra/sqlite';

/** The cron schema (feature `cron`). Append only: never edit a step that has shipped. */
export const CRON_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE cron_jobs (
    id TEXT PRIMARY KEY,
    agent TEXT NOT NULL,
    schedule TEXT NOT NULL,
    timezone TEXT,
    message TEXT,
    heartbeat INTEGER NOT NULL DEFAULT 0,
    origin TEXT NOT NULL CHECK (origin IN ('config', 'agent', 'operator')),
    paused INTEGER NOT NULL DEFAULT 0,
    next_run_at INTEGER,
    last_run_at INTEGER,
    last_result TEXT,
    runs INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
  ) STRICT;
  `,
  // A config job may start a temporary agent from this template instead of messaging its agent.
  `ALTER TABLE cron_jobs ADD COLUMN spawn TEXT;`,
];

/** One scheduled job, as persisted. */
export interface CronJob {
  id: string;
  agent: string;
  schedule: string;
  timezone: string | null;
  message: string | null;
  heartbeat: boolean;
  /** A template of mesh.yaml: each run spawns a temporary agent from it (docs/mesh.md, "Fleet spawn"). */
  spawn: string | null;
  origin: 'config' | 'agent' | 'operator';
  paused: boolean;
  /** Epoch ms of the next run; null once a one-shot has run. */
  nextRunAt: number | null;
  lastRunAt: number | null;
  lastResult: string | null;
  runs: number;
  createdAt: number;
}

interface Row
  extends Omit<
    CronJob,
    'heartbeat' | 'spawn' | 'paused' | 'nextRunAt' | 'lastRunAt' | 'lastResult' | 'createdAt'
  > {
  heartbeat: number;
  spawn: string | null;
  paused: number;
  next_run_at: number | null;
  last_run_at: number | null;
  last_result: string | null;
  created_at: number;
}

const toJob = (row: Row): CronJob => ({
  id: row.id,
  agent: row.agent,
  schedule: row.schedule,
  timezone: row.timezone,
  message: row.message,
  heartbeat: row.heartbeat === 1,
  spawn: row.spawn ?? null,
  origin: row.origin,
  paused: row.paused === 1,
  nextRunAt: row.next_run_at,
  lastRunAt: row.last_run_at,
  lastResult: row.last_result,
  runs: row.runs,
  createdAt: row.created_at,
});

export type NewCronJob = Pick<
  CronJob,
  'id' | 'agent' | 'schedule' | 'timezone' | 'message' | 'heartbeat' | 'origin' | 'nextRunAt' | 'createdAt'
> & { spawn?: string | null };

/** The cron jobs in mesh.db. */
export class CronRepository {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  list(agent?: string): CronJob[] {
    const rows = agent
      ? this.#db.prepare<[string], Row>('SELECT * FROM cron_jobs WHERE agent = ? ORDER BY id').all(agent)
      : this.#db.prepare<[], Row>('SELECT * FROM cron_jobs ORDER BY id').all();
    return rows.map(toJob);
  }

  get(id: string): CronJob | undefined {
    const row = this.#db.prepare<[string], Row>('SELECT * FROM cron_jobs WHERE id = ?').get(id);
    return row && toJob(row);
  }

  /** Insert a job; an existing job of the same id keeps its run history, and takes the new schedule. */
  upsert(job: NewCronJob): void {
    this.#db
      .prepare(
        `INSERT INTO cron_jobs (id, agent, schedule, timezone, message, heartbeat, origin, next_run_at, created_at, spawn)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET schedule = excluded.schedule, timezone = excluded.timezone,
           message = excluded.message, heartbeat = excluded.heartbeat, spawn = excluded.spawn,
           next_run_at = CASE WHEN cron_jobs.schedule = excluded.schedule
             AND cron_jobs.timezone IS excluded.timezone THEN cron_jobs.next_run_at ELSE excluded.next_run_at END`,
      )
      .run(
        job.id,
        job.agent,
        job.schedule,
        job.timezone,
        job.message,
        job.heartbeat ? 1 : 0,
        job.origin,
        job.nextRunAt,
        job.createdAt,
        job.spawn ?? null,
      );
  }

  remove(id: string): boolean {
    return this.#db.prepare('DELETE FROM cron_jobs WHERE id = ?').run(id).changes > 0;
  }

  /** Remove the config jobs mesh.yaml no longer has. */
  removeConfigJobsExcept(ids: readonly string[]): void {
    const keep = new Set(ids);
    for (const job of this.list()) if (job.origin === 'config' && !keep.has(job.id)) this.remove(job.id);
  }

  setPaused(id: string, paused: boolean): void {
    this.#db.prepare('UPDATE cron_jobs SET paused = ? WHERE id = ?').run(paused ? 1 : 0, id);
  }

  /** Jobs due at `now` that are not paused. */
  due(now: number): CronJob[] {
    return this.#db
      .prepare<[number], Row>(
        'SELECT * FROM cron_jobs WHERE paused = 0 AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at',
      )
      .all(now)
      .map(toJob);
  }

  /** The earliest next run of a job that is not paused. */
  earliest(): number | undefined {
    const row = this.#db
      .prepare<[], { at: number | null }>('SELECT MIN(next_run_at) AS at FROM cron_jobs WHERE paused = 0')
      .get();
    return row?.at ?? undefined;
  }

  /** A run was handed to the lane: record it and when the job runs next (null: never again). */
  recordFired(id: string, now: number, nextRunAt: number | null): void {
    this.#db
      .prepare('UPDATE cron_jobs SET last_run_at = ?, next_run_at = ?, runs = runs + 1 WHERE id = ?')
      .run(now, nextRunAt, id);
  }

  recordResult(id: string, result: string): void {
    this.#db.prepare('UPDATE cron_jobs SET last_result = ? WHERE id = ?').run(result, id);
  }
}
