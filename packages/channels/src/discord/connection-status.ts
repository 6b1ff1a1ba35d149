import type { Database } from '@openlegion/infra/sqlite';

/** Where the Discord connection stands, for `openlegion discord status` and the log. */
export interface DiscordStatus {
  state: 'stopped' | 'starting' | 'ready' | 'reconnecting' | 'failed';
  /** Why it failed or reconnects, in words the operator can act on. */
  detail?: string;
  /** The error code of a failure (CHAN_TOKEN_REJECTED, CHAN_INTENT_MISSING, CHAN_UNREACHABLE). */
  code?: string;
  /** Epoch ms of the change. */
  at: number;
}

const KEY = 'connection';

/**
 * The connection's last status in mesh.db (`discord_state`): written by the running channel at
 * each change, read by `openlegion discord status` from another process.
 */
export class ConnectionStatus {
  constructor(private readonly db: Database) {}

  save(status: DiscordStatus): void {
    this.db
      .prepare(
        'INSERT INTO discord_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      )
      .run(KEY, JSON.stringify(status));
  }

  load(): DiscordStatus | undefined {
    const row = this.db
      .prepare<[string], { value: string }>('SELECT value FROM discord_state WHERE key = ?')
      .get(KEY);
    return row ? (JSON.parse(row.value) as DiscordStatus) : undefined;
  }
}
