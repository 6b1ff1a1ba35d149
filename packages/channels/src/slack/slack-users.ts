import type { Database } from '@openlegion/infra/sqlite';

/** Who may talk to the bot: the owner (the first to pair) or someone the owner let in. */
export type SlackRole = 'owner' | 'allowed';

/** A paired Slack user and their preferences. */
export interface SlackPairedUser {
  userId: string;
  role: SlackRole;
  name: string;
  /** The DM (`D…`) they paired in: where operator notices and approvals reach the owner. */
  dmChannel: string | undefined;
  pairedAt: number;
  activeAgent: string | undefined;
  debug: boolean;
}

interface UserRow {
  user_id: string;
  role: SlackRole;
  name: string;
  dm_channel: string | null;
  paired_at: number;
  active_agent: string | null;
  debug: number;
}

const toUser = (row: UserRow): SlackPairedUser => ({
  userId: row.user_id,
  role: row.role,
  name: row.name,
  dmChannel: row.dm_channel ?? undefined,
  pairedAt: row.paired_at,
  activeAgent: row.active_agent ?? undefined,
  debug: row.debug === 1,
});

/**
 * Whose conversation a message belongs to: a DM's is its person's; a channel's is the channel's,
 * shared by the paired people who mention the bot there.
 */
export type SlackScope = { kind: 'dm'; userId: string } | { kind: 'channel'; channel: string };

/** Paired Slack users, their agents and conversations, in mesh.db (`slack` track). */
export class SlackUsers {
  constructor(private readonly db: Database) {}

  get(userId: string): SlackPairedUser | undefined {
    const row = this.db.prepare<[string], UserRow>('SELECT * FROM slack_users WHERE user_id = ?').get(userId);
    return row ? toUser(row) : undefined;
  }

  owner(): SlackPairedUser | undefined {
    const row = this.db.prepare<[], UserRow>("SELECT * FROM slack_users WHERE role = 'owner'").get();
    return row ? toUser(row) : undefined;
  }

  list(): SlackPairedUser[] {
    return this.db
      .prepare<[], UserRow>("SELECT * FROM slack_users ORDER BY role = 'owner' DESC, paired_at, user_id")
      .all()
      .map(toUser);
  }

  /** Pair someone: the owner when nobody is, otherwise allowed. Runs in the caller's transaction. */
  pair(userId: string, name: string, dmChannel: string | undefined, now: number): SlackPairedUser {
    const role: SlackRole = this.owner() ? 'allowed' : 'owner';
    this.db
      .prepare(
        'INSERT INTO slack_users (user_id, role, name, dm_channel, paired_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO NOTHING',
      )
      .run(userId, role, name, dmChannel ?? null, now);
    this.db.prepare('DELETE FROM slack_told_to_pair WHERE user_id = ?').run(userId);
    return this.get(userId) as SlackPairedUser; // just inserted or already there
  }

  /** Remember the DM a paired person last wrote from (the owner's notices go there). */
  noteDm(userId: string, dmChannel: string): void {
    this.db.prepare('UPDATE slack_users SET dm_channel = ? WHERE user_id = ?').run(dmChannel, userId);
  }

  setActiveAgent(userId: string, agent: string): void {
    this.db.prepare('UPDATE slack_users SET active_agent = ? WHERE user_id = ?').run(agent, userId);
  }

  conversationId(scope: SlackScope, agent: string): string {
    const key = scopeKey(scope);
    const row = this.db
      .prepare<[string, string], { generation: number }>(
        'SELECT generation FROM slack_conversations WHERE scope = ? AND agent = ?',
      )
      .get(key, agent);
    const generation = row?.generation ?? 0;
    return generation === 0 ? `slack-${key}` : `slack-${key}-${generation}`;
  }

  /** True the first time it is asked for an unpaired person: they get the how-to-pair answer once. */
  firstTimeUnpaired(userId: string): boolean {
    return (
      this.db
        .prepare('INSERT INTO slack_told_to_pair (user_id) VALUES (?) ON CONFLICT DO NOTHING')
        .run(userId).changes > 0
    );
  }
}

function scopeKey(scope: SlackScope): string {
  return scope.kind === 'dm' ? scope.userId : `channel${scope.channel}`;
}
