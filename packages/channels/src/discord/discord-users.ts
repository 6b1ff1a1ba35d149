import type { Database } from '@openlegion/infra/sqlite';

/** Who may talk to the bot: the owner (the first to pair) or a user the owner let in. */
export type DiscordRole = 'owner' | 'allowed';

/** A paired Discord user and their preferences. */
export interface DiscordUser {
  /** The Discord user id (a snowflake). */
  userId: string;
  role: DiscordRole;
  name: string;
  pairedAt: number;
  /** The agent their messages go to; undefined = the channel's default agent. */
  activeAgent: string | undefined;
  debug: boolean;
}

interface UserRow {
  user_id: string;
  role: DiscordRole;
  name: string;
  paired_at: number;
  active_agent: string | null;
  debug: number;
}

const toUser = (row: UserRow): DiscordUser => ({
  userId: row.user_id,
  role: row.role,
  name: row.name,
  pairedAt: row.paired_at,
  activeAgent: row.active_agent ?? undefined,
  debug: row.debug === 1,
});

/**
 * Whose conversation a message belongs to: a DM's is its user's; a server channel's is the
 * channel's, shared by its paired members, so what is said in a server never lands in anyone's DM
 * conversation.
 */
export function conversationScope(place: { channelId: string; inGuild: boolean }, userId: string): string {
  return place.inGuild ? `channel${place.channelId}` : userId;
}

/** Paired users, their active agents and conversations, in mesh.db (`discord` track). */
export class DiscordUsers {
  constructor(private readonly db: Database) {}

  get(userId: string): DiscordUser | undefined {
    const row = this.db
      .prepare<[string], UserRow>('SELECT * FROM discord_users WHERE user_id = ?')
      .get(userId);
    return row ? toUser(row) : undefined;
  }

  owner(): DiscordUser | undefined {
    const row = this.db.prepare<[], UserRow>("SELECT * FROM discord_users WHERE role = 'owner'").get();
    return row ? toUser(row) : undefined;
  }

  /** Every paired user, the owner first, then by pairing time. */
  list(): DiscordUser[] {
    return this.db
      .prepare<[], UserRow>("SELECT * FROM discord_users ORDER BY role = 'owner' DESC, paired_at, user_id")
      .all()
      .map(toUser);
  }

  /** Pair a user: the owner when none is paired yet, otherwise an allowed user (in the caller's transaction). */
  pair(userId: string, name: string, now: number): DiscordUser {
    const role: DiscordRole = this.owner() ? 'allowed' : 'owner';
    this.db
      .prepare(
        'INSERT INTO discord_users (user_id, role, name, paired_at) VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO NOTHING',
      )
      .run(userId, role, name, now);
    this.db.prepare('DELETE FROM discord_told_to_pair WHERE user_id = ?').run(userId);
    return this.get(userId) as DiscordUser; // just inserted or already there
  }

  revoke(userId: string): boolean {
    const removed = this.db.prepare('DELETE FROM discord_users WHERE user_id = ?').run(userId).changes > 0;
    this.db.prepare('DELETE FROM discord_told_to_pair WHERE user_id = ?').run(userId);
    return removed;
  }

  setActiveAgent(userId: string, agent: string): void {
    this.db.prepare('UPDATE discord_users SET active_agent = ? WHERE user_id = ?').run(agent, userId);
  }

  setDebug(userId: string, debug: boolean): void {
    this.db.prepare('UPDATE discord_users SET debug = ? WHERE user_id = ?').run(debug ? 1 : 0, userId);
  }

  /** The conversation id the messages of `scope` to `agent` go under: `discord-<scope>[-n]`. */
  conversationId(scope: string, agent: string): string {
    const row = this.db
      .prepare<[string, string], { generation: number }>(
        'SELECT generation FROM discord_conversations WHERE scope = ? AND agent = ?',
      )
      .get(scope, agent);
    return formatConversationId(scope, row?.generation ?? 0);
  }

  /** Start a new conversation of `scope` with `agent` (`/reset`); returns its id. */
  resetConversation(scope: string, agent: string): string {
    const row = this.db
      .prepare<[string, string], { generation: number }>(
        `INSERT INTO discord_conversations (scope, agent, generation) VALUES (?, ?, 1)
         ON CONFLICT (scope, agent) DO UPDATE SET generation = generation + 1 RETURNING generation`,
      )
      .get(scope, agent);
    return formatConversationId(scope, row?.generation ?? 1);
  }

  /** True the first time it is asked for an unpaired user: they get the how-to-pair answer once. */
  firstTimeUnpaired(userId: string): boolean {
    return (
      this.db
        .prepare('INSERT INTO discord_told_to_pair (user_id) VALUES (?) ON CONFLICT DO NOTHING')
        .run(userId).changes > 0
    );
  }
}

function formatConversationId(scope: string, generation: number): string {
  return generation === 0 ? `discord-${scope}` : `discord-${scope}-${generation}`;
}
