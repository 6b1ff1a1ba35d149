import { join } from 'node:path';
import { type Clock, systemClock } from '@openlegion/infra/clock';
import { type Database, migrate, openDatabase, transaction } from '@openlegion/infra/sqlite';

export type StoredRole = 'user' | 'assistant';

/** One message of a conversation, in the order it was said. */
export interface StoredMessage {
  role: StoredRole;
  content: string;
}

/** Schema steps of the conversations table. Append only, never edit a step that shipped. */
const CONVERSATION_MIGRATIONS: readonly string[] = [
  `CREATE TABLE messages (
     conversation_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
     content TEXT NOT NULL,
     created_at TEXT NOT NULL,
     PRIMARY KEY (conversation_id, seq)
   ) WITHOUT ROWID`,
];

/** The agent's conversations in SQLite at `<dataDir>/agent.db`; survives container restarts. */
export class ConversationStore {
  readonly #db: Database;
  readonly #clock: Clock;

  private constructor(db: Database, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  /** Open (creating the directory and database when needed) and migrate the store. */
  static open(dataDir: string, options: { clock?: Clock } = {}): ConversationStore {
    const db = openDatabase(join(dataDir, 'agent.db'));
    try {
      // Stores made before per-feature tracking kept this schema's version in user_version.
      migrate(db, [{ feature: 'conversations', steps: CONVERSATION_MIGRATIONS, adoptsUserVersion: true }]);
    } catch (error) {
      db.close();
      throw error;
    }
    return new ConversationStore(db, options.clock ?? systemClock);
  }

  /** Append messages to a conversation atomically: all of them are stored or none. */
  append(conversationId: string, messages: readonly StoredMessage[]): void {
    const nextSeq = this.#db.prepare<[string], { next: number }>(
      'SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages WHERE conversation_id = ?',
    );
    const insert = this.#db.prepare(
      'INSERT INTO messages (conversation_id, seq, role, content, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    transaction(this.#db, () => {
      let seq = nextSeq.get(conversationId)?.next ?? 1;
      const createdAt = new Date(this.#clock.now()).toISOString();
      for (const message of messages)
        insert.run(conversationId, seq++, message.role, message.content, createdAt);
    });
  }

  /** Every message of a conversation, oldest first; empty for an unknown conversation. */
  list(conversationId: string): StoredMessage[] {
    return this.#db
      .prepare<[string], StoredMessage>(
        'SELECT role, content FROM messages WHERE conversation_id = ? ORDER BY seq',
      )
      .all(conversationId);
  }

  /** How many conversations hold at least one message. */
  conversationCount(): number {
    const row = this.#db
      .prepare<[], { count: number }>('SELECT COUNT(DISTINCT conversation_id) AS count FROM messages')
      .get();
    return row?.count ?? 0;
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
