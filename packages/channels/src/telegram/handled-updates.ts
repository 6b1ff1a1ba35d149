import type { Database } from '@openlegion/infra/sqlite';

const LAST_UPDATE_KEY = 'last_update_id';

/**
 * The id of the last update the channel took in, kept in mesh.db. Telegram redelivers updates until
 * a later getUpdates confirms them (or a webhook answers 200), so after a crash or restart the same
 * update can come again: it is recognised here and not handled twice.
 */
export class HandledUpdates {
  constructor(private readonly db: Database) {}

  last(): number | undefined {
    const row = this.db
      .prepare<[string], { value: string }>('SELECT value FROM telegram_state WHERE key = ?')
      .get(LAST_UPDATE_KEY);
    return row ? Number(row.value) : undefined;
  }

  isNew(updateId: number): boolean {
    const last = this.last();
    return last === undefined || updateId > last;
  }

  record(updateId: number): void {
    this.db
      .prepare(
        `INSERT INTO telegram_state (key, value) VALUES (?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE CAST(value AS INTEGER) < CAST(excluded.value AS INTEGER)`,
      )
      .run(LAST_UPDATE_KEY, String(updateId));
  }
}

/** The `update_id` of a raw update, if it has one. */
export function updateIdOf(raw: unknown): number | undefined {
  if (typeof raw !== 'object' || raw === null || !('update_id' in raw)) return undefined;
  const id = raw.update_id;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : undefined;
}
