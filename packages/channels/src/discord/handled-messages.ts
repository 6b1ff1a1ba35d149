import type { Database } from '@openlegion/infra/sqlite';

/** How long a message id is remembered: Discord replays within a session, never days later. */
export const HANDLED_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The Discord messages taken in, by id, in mesh.db. The Gateway replays events after a RESUME and
 * may send one twice; a message seen before is dropped, so it never gets a second reply.
 */
export class HandledMessages {
  constructor(private readonly db: Database) {}

  /** Record `messageId`; false when it was recorded before (a replay). */
  claim(messageId: string, now: number): boolean {
    return (
      this.db
        .prepare('INSERT INTO discord_handled (message_id, at) VALUES (?, ?) ON CONFLICT DO NOTHING')
        .run(messageId, now).changes > 0
    );
  }

  /** Forget ids older than the retention (called at start). */
  prune(now: number): void {
    this.db.prepare('DELETE FROM discord_handled WHERE at < ?').run(now - HANDLED_RETENTION_MS);
  }
}
