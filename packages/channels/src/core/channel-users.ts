import type { Database } from '@openlegion/infra/sqlite';
import type { ChannelName } from '@openlegion/protocol';

/** Who may talk to a channel's bot: the owner (the first to pair) or a user the owner let in. */
export type ChannelRole = 'owner' | 'allowed';

/** A paired person on one channel, and their preferences. */
export interface ChannelUser {
  userId: string;
  role: ChannelRole;
  name: string;
  pairedAt: number;
  /** The agent their messages go to; undefined = the channel's default agent. */
  activeAgent: string | undefined;
  debug: boolean;
  /** Where the bot reaches them (their DM's id), for notices and mirrored replies. */
  ownerConversation: string | undefined;
}

interface UserRow {
  user_id: string;
  role: ChannelRole;
  name: string;
  paired_at: number;
  active_agent: string | null;
  debug: number;
  owner_conversation: string | null;
}

const toUser = (row: UserRow): ChannelUser => ({
  userId: row.user_id,
  role: row.role,
  name: row.name,
  pairedAt: row.paired_at,
  activeAgent: row.active_agent ?? undefined,
  debug: row.debug === 1,
  ownerConversation: row.owner_conversation ?? undefined,
});

/**
 * Paired users of one channel in the shared `channel_users` table (Discord, Slack; Telegram keeps
 * its `telegram_users` behind the same methods). One owner per channel.
 */
export class ChannelUsers {
  constructor(
    private readonly db: Database,
    readonly channel: ChannelName,
  ) {}

  /** The agent's conversation of `base` (a person's DM, a channel): `base`, or `base-N` after N resets. */
  conversationId(base: string, agent: string): string {
    const row = this.db
      .prepare<[string, string, string], { generation: number }>(
        'SELECT generation FROM channel_conversations WHERE channel = ? AND base = ? AND agent = ?',
      )
      .get(this.channel, base, agent);
    return row ? `${base}-${row.generation}` : base;
  }

  /** Start a new conversation of `base` with `agent` (`/reset`); returns its id. */
  resetConversation(base: string, agent: string): string {
    const row = this.db
      .prepare<[string, string, string], { generation: number }>(
        `INSERT INTO channel_conversations (channel, base, agent, generation) VALUES (?, ?, ?, 1)
         ON CONFLICT (channel, base, agent) DO UPDATE SET generation = generation + 1 RETURNING generation`,
      )
      .get(this.channel, base, agent);
    return `${base}-${row?.generation ?? 1}`;
  }

  get(userId: string): ChannelUser | undefined {
    const row = this.db
      .prepare<[string, string], UserRow>('SELECT * FROM channel_users WHERE channel = ? AND user_id = ?')
      .get(this.channel, userId);
    return row ? toUser(row) : undefined;
  }

  owner(): ChannelUser | undefined {
    const row = this.db
      .prepare<[string], UserRow>("SELECT * FROM channel_users WHERE channel = ? AND role = 'owner'")
      .get(this.channel);
    return row ? toUser(row) : undefined;
  }

  /** Every paired user, the owner first, then by pairing time. */
  list(): ChannelUser[] {
    return this.db
      .prepare<[string], UserRow>(
        "SELECT * FROM channel_users WHERE channel = ? ORDER BY role = 'owner' DESC, paired_at, user_id",
      )
      .all(this.channel)
      .map(toUser);
  }

  /** Pair a user: the owner when none is paired yet, otherwise allowed. Already paired users keep their role. */
  pair(userId: string, name: string, now: number): ChannelUser {
    const role: ChannelRole = this.owner() ? 'allowed' : 'owner';
    this.db
      .prepare(
        `INSERT INTO channel_users (channel, user_id, role, name, paired_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (channel, user_id) DO NOTHING`,
      )
      .run(this.channel, userId, role, name, now);
    this.db
      .prepare('DELETE FROM channel_told_to_pair WHERE channel = ? AND user_id = ?')
      .run(this.channel, userId);
    return this.get(userId) as ChannelUser; // just inserted or already there
  }

  /** Remove a user's pairing; false when they were not paired. Revoking the owner frees the role. */
  revoke(userId: string): boolean {
    const removed =
      this.db.prepare('DELETE FROM channel_users WHERE channel = ? AND user_id = ?').run(this.channel, userId)
        .changes > 0;
    this.db
      .prepare('DELETE FROM channel_told_to_pair WHERE channel = ? AND user_id = ?')
      .run(this.channel, userId);
    return removed;
  }

  setActiveAgent(userId: string, agent: string): void {
    this.#set(userId, 'active_agent', agent);
  }

  setDebug(userId: string, debug: boolean): void {
    this.#set(userId, 'debug', debug ? 1 : 0);
  }

  /** Where the bot reaches this user directly (their DM), for notices and mirroring. */
  setConversation(userId: string, conversation: string): void {
    this.#set(userId, 'owner_conversation', conversation);
  }

  /** True the first time it is asked for an unpaired user: they get the how-to-pair answer once. */
  firstTimeUnpaired(userId: string): boolean {
    return (
      this.db
        .prepare('INSERT INTO channel_told_to_pair (channel, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING')
        .run(this.channel, userId).changes > 0
    );
  }

  #set(
    userId: string,
    column: 'active_agent' | 'debug' | 'owner_conversation',
    value: string | number,
  ): void {
    this.db
      .prepare(`UPDATE channel_users SET ${column} = ? WHERE channel = ? AND user_id = ?`)
      .run(value, this.channel, userId);
  }
}
