import type { Database } from '@openlegion/infra/sqlite';

/** Who may talk to the bot: the owner (the first to pair) or a user the owner let in. */
export type TelegramRole = 'owner' | 'allowed';

/** A paired Telegram user and their preferences. */
export interface PairedUser {
  userId: number;
  role: TelegramRole;
  /** Their Telegram name when they paired (for `/paired` and `openlegion telegram status`). */
  name: string;
  pairedAt: number;
  /** The agent their messages go to; undefined = the channel's default agent. */
  activeAgent: string | undefined;
  /** Whether replies show usage and notices (`/debug`). */
  debug: boolean;
}

interface UserRow {
  user_id: number;
  role: TelegramRole;
  name: string;
  paired_at: number;
  active_agent: string | null;
  debug: number;
}

const toUser = (row: UserRow): PairedUser => ({
  userId: row.user_id,
  role: row.role,
  name: row.name,
  pairedAt: row.paired_at,
  activeAgent: row.active_agent ?? undefined,
  debug: row.debug === 1,
});

/**
 * Whose conversation a message belongs to: a private chat's is its user's; a group chat's is the
 * group's, shared by its paired members, so what is said in a group never lands in (or reads back
 * from) anyone's private conversation.
 */
export type ConversationScope = { kind: 'private'; userId: number } | { kind: 'group'; chatId: number };

/** The scope of a message or command from `userId` in `chatId`. */
export function conversationScope(
  chat: { chatId: number; inGroup: boolean },
  userId: number,
): ConversationScope {
  return chat.inGroup ? { kind: 'group', chatId: chat.chatId } : { kind: 'private', userId };
}

/** Paired users, their active agents and conversations, in mesh.db (`telegram` track). */
export class TelegramUsers {
  constructor(private readonly db: Database) {}

  get(userId: number): PairedUser | undefined {
    const row = this.db
      .prepare<[number], UserRow>('SELECT * FROM telegram_users WHERE user_id = ?')
      .get(userId);
    return row ? toUser(row) : undefined;
  }

  owner(): PairedUser | undefined {
    const row = this.db.prepare<[], UserRow>("SELECT * FROM telegram_users WHERE role = 'owner'").get();
    return row ? toUser(row) : undefined;
  }

  /** Every paired user, the owner first, then by pairing time. */
  list(): PairedUser[] {
    return this.db
      .prepare<[], UserRow>("SELECT * FROM telegram_users ORDER BY role = 'owner' DESC, paired_at, user_id")
      .all()
      .map(toUser);
  }

  /**
   * Pair a user: the owner when none is paired yet, otherwise an allowed user. Already paired users
   * keep their role. Runs inside the caller's transaction when there is one.
   */
  pair(userId: number, name: string, now: number): PairedUser {
    const role: TelegramRole = this.owner() ? 'allowed' : 'owner';
    this.db
      .prepare(
        'INSERT INTO telegram_users (user_id, role, name, paired_at) VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO NOTHING',
      )
      .run(userId, role, name, now);
    this.db.prepare('DELETE FROM telegram_told_to_pair WHERE user_id = ?').run(userId);
    return this.get(userId) as PairedUser; // just inserted or already there
  }

  /** Remove a user's pairing; false when they were not paired. Revoking the owner frees the role. */
  revoke(userId: number): boolean {
    const removed = this.db.prepare('DELETE FROM telegram_users WHERE user_id = ?').run(userId).changes > 0;
    this.db.prepare('DELETE FROM telegram_told_to_pair WHERE user_id = ?').run(userId);
    return removed;
  }

  setActiveAgent(userId: number, agent: string): void {
    this.db.prepare('UPDATE telegram_users SET active_agent = ? WHERE user_id = ?').run(agent, userId);
  }

  setDebug(userId: number, debug: boolean): void {
    this.db.prepare('UPDATE telegram_users SET debug = ? WHERE user_id = ?').run(debug ? 1 : 0, userId);
  }

  /** The conversation id the messages of `scope` to `agent` go under. */
  conversationId(scope: ConversationScope, agent: string): string {
    const row =
      scope.kind === 'private'
        ? this.db
            .prepare<[number, string], { generation: number }>(
              'SELECT generation FROM telegram_conversations WHERE user_id = ? AND agent = ?',
            )
            .get(scope.userId, agent)
        : this.db
            .prepare<[number, string], { generation: number }>(
              'SELECT generation FROM telegram_group_conversations WHERE chat_id = ? AND agent = ?',
            )
            .get(scope.chatId, agent);
    return formatConversationId(scope, row?.generation ?? 0);
  }

  /** Start a new conversation of `scope` with `agent` (`/reset`); returns its id. */
  resetConversation(scope: ConversationScope, agent: string): string {
    const row =
      scope.kind === 'private'
        ? this.db
            .prepare<[number, string], { generation: number }>(
              `INSERT INTO telegram_conversations (user_id, agent, generation) VALUES (?, ?, 1)
               ON CONFLICT (user_id, agent) DO UPDATE SET generation = generation + 1 RETURNING generation`,
            )
            .get(scope.userId, agent)
        : this.db
            .prepare<[number, string], { generation: number }>(
              `INSERT INTO telegram_group_conversations (chat_id, agent, generation) VALUES (?, ?, 1)
               ON CONFLICT (chat_id, agent) DO UPDATE SET generation = generation + 1 RETURNING generation`,
            )
            .get(scope.chatId, agent);
    return formatConversationId(scope, row?.generation ?? 1);
  }

  /** True the first time it is asked for an unpaired user: they get the how-to-pair answer once. */
  firstTimeUnpaired(userId: number): boolean {
    return (
      this.db
        .prepare('INSERT INTO telegram_told_to_pair (user_id) VALUES (?) ON CONFLICT DO NOTHING')
        .run(userId).changes > 0
    );
  }
}

/** `telegram-<user>` (as before groups had their own) or `telegram-group<chat id>` (negative), `-<n>` after a reset. */
function formatConversationId(scope: ConversationScope, generation: number): string {
  const base = scope.kind === 'private' ? `telegram-${scope.userId}` : `telegram-group${scope.chatId}`;
  return generation === 0 ? base : `${base}-${generation}`;
}
