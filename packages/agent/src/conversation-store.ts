import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export type StoredRole = 'user' | 'assistant';

/** One message of a conversation, in the order it was said. */
export interface StoredMessage {
  role: StoredRole;
  content: string;
}

/** Schema steps; `PRAGMA user_version` records how many have run. Append only, never edit. */
const MIGRATIONS: readonly string[] = [
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
  readonly #db: Database.Database;
  readonly #now: () => Date;

  private constructor(db: Database.Database, now: () => Date) {
    this.#db = db;
    this.#now = now;
  }

  /** Open (creating the directory and database when needed) and migrate the store. */
  static open(dataDir: string, options: { now?: () => Date } = {}): ConversationStore {
    mkdirSync(dataDir, { recursive: true });
    const db = new Database(join(dataDir, 'agent.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    migrate(db);
    return new ConversationStore(db, options.now ?? (() => new Date()));
  }

  /** Append messages to a conversation atomically: all of them are stored or none. */
  append(conversationId: string, messages: readonly StoredMessage[]): void {
    const nextSeq = this.#db.prepare<[string], { next: number }>(
      'SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages WHERE conversation_id = ?',
    );
    const insert = this.#db.prepare(
      'INSERT INTO messages (conversation_id, seq, role, content, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.#db.transaction(() => {
      let seq = nextSeq.get(conversationId)?.next ?? 1;
      const createdAt = this.#now().toISOString();
      for (const message of messages)
        insert.run(conversationId, seq++, message.role, message.content, createdAt);
    })();
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

function migrate(db: Database.Database): void {
  const applied = Number(db.pragma('user_version', { simple: true }));
  db.transaction(() => {
    MIGRATIONS.slice(applied).forEach((sql, index) => {
      db.exec(sql);
      db.pragma(`user_version = ${applied + index + 1}`);
    });
  })();
}
