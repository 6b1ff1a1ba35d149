import type { Database } from '@openlegion/infra/sqlite';

/** Slack retries an event for up to about an hour; keys older than a day can go. */
const KEEP_MS = 24 * 60 * 60 * 1000;

/**
 * The Slack messages taken in that were not chats (pairing, commands), by `channel:ts`, kept in
 * mesh.db so a replay after a reconnect or restart is not answered twice. Chats are deduplicated by
 * the delivery core's spool under the same key.
 */
export class TakenIn {
  constructor(private readonly db: Database) {}

  /** True the first time `key` is claimed; false for a replay. */
  claim(key: string, now: number): boolean {
    this.db.prepare('DELETE FROM slack_taken_in WHERE at < ?').run(now - KEEP_MS);
    return (
      this.db
        .prepare('INSERT INTO slack_taken_in (key, at) VALUES (?, ?) ON CONFLICT DO NOTHING')
        .run(key, now).changes > 0
    );
  }
}
