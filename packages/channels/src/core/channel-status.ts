import type { Clock } from '@openlegion/infra/clock';
import { type Database, migrate } from '@openlegion/infra/sqlite';
import type { ChannelName } from '@openlegion/protocol';
import { CHANNELS_FEATURE, CHANNELS_MIGRATIONS } from './channel-migrations.js';

/**
 * How a channel stands, as `openlegion status` shows it. `token_rejected`, `missing_permission`
 * (an intent or scope the bot lacks) and `forbidden` (a conversation the bot may not post in) need
 * the operator; `rate_limited`, `unreachable` and `reconnecting` pass on their own.
 */
export type ChannelState =
  | 'starting'
  | 'connected'
  | 'reconnecting'
  | 'rate_limited'
  | 'unreachable'
  | 'token_rejected'
  | 'missing_permission'
  | 'forbidden'
  | 'stopped';

/** One channel's line. */
export interface ChannelStatusLine {
  channel: ChannelName;
  state: ChannelState;
  detail: string;
  /** Epoch ms of the last change. */
  updatedAt: number;
}

/**
 * Each channel's state in mesh.db (`channel_status`): written by the running channel as it
 * changes, read by `openlegion status` from another process (channels run in `openlegion start`,
 * not behind the host's API). Writes only on a change, so a busy channel does not write per call.
 *
 * @example
 * const board = new ChannelStatusBoard(db, clock);
 * board.set('discord', 'rate_limited', 'retry after 3 s');
 */
export class ChannelStatusBoard {
  readonly #last = new Map<string, string>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    migrate(db, [{ feature: CHANNELS_FEATURE, steps: CHANNELS_MIGRATIONS }]);
  }

  set(channel: ChannelName, state: ChannelState, detail = ''): void {
    const key = `${state}\u0000${detail}`;
    if (this.#last.get(channel) === key) return;
    this.#last.set(channel, key);
    this.db
      .prepare(
        `INSERT INTO channel_status (channel, state, detail, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (channel) DO UPDATE SET state = excluded.state, detail = excluded.detail, updated_at = excluded.updated_at`,
      )
      .run(channel, state, detail.slice(0, 300), this.clock.now());
  }

  all(): ChannelStatusLine[] {
    return this.db
      .prepare<[], { channel: ChannelName; state: ChannelState; detail: string; updated_at: number }>(
        'SELECT * FROM channel_status ORDER BY channel',
      )
      .all()
      .map((row) => ({
        channel: row.channel,
        state: row.state,
        detail: row.detail,
        updatedAt: row.updated_at,
      }));
  }
}
