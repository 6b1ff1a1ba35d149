import type { Database } from '@openlegion/infra/sqlite';

/** One cron-triggered workflow's schedule and next slot, as persisted. */
export interface WorkflowCronEntry {
  workflow: string;
  schedule: string;
  timezone: string | null;
  nextRunAt: number | null;
}

interface Row {
  workflow: string;
  schedule: string;
  timezone: string | null;
  next_run_at: number | null;
}

const toEntry = (row: Row): WorkflowCronEntry => ({
  workflow: row.workflow,
  schedule: row.schedule,
  timezone: row.timezone,
  nextRunAt: row.next_run_at,
});

/** The schedules of cron-triggered workflows in mesh.db (table `workflow_cron`). */
export class WorkflowCronRepository {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Add a schedule; an unchanged one keeps its next slot (a slot missed while down still runs). */
  upsert(workflow: string, schedule: string, timezone: string | null, nextRunAt: number | null): void {
    this.#db
      .prepare(
        `INSERT INTO workflow_cron (workflow, schedule, timezone, next_run_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (workflow) DO UPDATE SET schedule = excluded.schedule, timezone = excluded.timezone,
           next_run_at = CASE WHEN workflow_cron.schedule = excluded.schedule
             AND workflow_cron.timezone IS excluded.timezone THEN workflow_cron.next_run_at ELSE excluded.next_run_at END`,
      )
      .run(workflow, schedule, timezone, nextRunAt);
  }

  /** Drop the schedules of workflows that no longer have one. */
  removeExcept(workflows: readonly string[]): void {
    const keep = new Set(workflows);
    for (const row of this.#db.prepare<[], Row>('SELECT * FROM workflow_cron').all())
      if (!keep.has(row.workflow))
        this.#db.prepare('DELETE FROM workflow_cron WHERE workflow = ?').run(row.workflow);
  }

  due(now: number): WorkflowCronEntry[] {
    return this.#db
      .prepare<[number], Row>(
        'SELECT * FROM workflow_cron WHERE next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at',
      )
      .all(now)
      .map(toEntry);
  }

  earliest(): number | undefined {
    return (
      this.#db.prepare<[], { at: number | null }>('SELECT MIN(next_run_at) AS at FROM workflow_cron').get()
        ?.at ?? undefined
    );
  }

  setNext(workflow: string, nextRunAt: number | null): void {
    this.#db.prepare('UPDATE workflow_cron SET next_run_at = ? WHERE workflow = ?').run(nextRunAt, workflow);
  }
}
