import { join } from 'node:path';
import { type Clock, systemClock } from '@openlegion/infra/clock';
import { type Database, migrate, openDatabase, transaction } from '@openlegion/infra/sqlite';

export type StoredRole = 'user' | 'assistant' | 'tool';

/** A tool call an assistant message made, in the OpenAI wire shape. */
export interface StoredToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * One message of a conversation, in the order it was said. The shapes are the OpenAI chat message
 * shapes, so a stored conversation is sent to the LLM as it is.
 */
export type StoredMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: StoredToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

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
  // Tool rounds are stored with their turn: SQLite cannot widen a CHECK, so the table is rebuilt.
  `CREATE TABLE messages_v2 (
     conversation_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
     content TEXT NOT NULL,
     tool_calls TEXT,
     tool_call_id TEXT,
     created_at TEXT NOT NULL,
     PRIMARY KEY (conversation_id, seq)
   ) WITHOUT ROWID;
   INSERT INTO messages_v2 (conversation_id, seq, role, content, created_at)
     SELECT conversation_id, seq, role, content, created_at FROM messages;
   DROP TABLE messages;
   ALTER TABLE messages_v2 RENAME TO messages`,
  // The `/model` directive's choice, per conversation: kept across restarts, like the messages.
  `CREATE TABLE conversation_models (
     conversation_id TEXT PRIMARY KEY,
     model TEXT NOT NULL,
     updated_at TEXT NOT NULL
   ) WITHOUT ROWID`,
];

interface MessageRow {
  role: StoredRole;
  content: string;
  tool_calls: string | null;
  tool_call_id: string | null;
}

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
      `INSERT INTO messages (conversation_id, seq, role, content, tool_calls, tool_call_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    transaction(this.#db, () => {
      let seq = nextSeq.get(conversationId)?.next ?? 1;
      const createdAt = new Date(this.#clock.now()).toISOString();
      for (const message of messages) {
        const toolCalls =
          message.role === 'assistant' && message.tool_calls?.length
            ? JSON.stringify(message.tool_calls)
            : null;
        const toolCallId = message.role === 'tool' ? message.tool_call_id : null;
        insert.run(
          conversationId,
          seq++,
          message.role,
          message.content ?? '',
          toolCalls,
          toolCallId,
          createdAt,
        );
      }
    });
  }

  /** Every message of a conversation, oldest first; empty for an unknown conversation. */
  list(conversationId: string): StoredMessage[] {
    return this.#db
      .prepare<[string], MessageRow>(
        'SELECT role, content, tool_calls, tool_call_id FROM messages WHERE conversation_id = ? ORDER BY seq',
      )
      .all(conversationId)
      .map(toStoredMessage);
  }

  /** The model `/model` chose for a conversation; undefined when it uses mesh.yaml's. */
  modelOf(conversationId: string): string | undefined {
    return this.#db
      .prepare<[string], { model: string }>('SELECT model FROM conversation_models WHERE conversation_id = ?')
      .get(conversationId)?.model;
  }

  /** Keep `model` for a conversation, or (undefined) go back to mesh.yaml's. */
  setModel(conversationId: string, model: string | undefined): void {
    if (model === undefined) {
      this.#db.prepare('DELETE FROM conversation_models WHERE conversation_id = ?').run(conversationId);
      return;
    }
    this.#db
      .prepare(
        `INSERT INTO conversation_models (conversation_id, model, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (conversation_id) DO UPDATE SET model = excluded.model, updated_at = excluded.updated_at`,
      )
      .run(conversationId, model, new Date(this.#clock.now()).toISOString());
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

function toStoredMessage(row: MessageRow): StoredMessage {
  if (row.role === 'tool')
    return { role: 'tool', tool_call_id: row.tool_call_id ?? '', content: row.content };
  if (row.role === 'user') return { role: 'user', content: row.content };
  if (row.tool_calls === null) return { role: 'assistant', content: row.content };
  // An assistant message that only calls tools has no text; providers want null there, not ''.
  const toolCalls = JSON.parse(row.tool_calls) as StoredToolCall[];
  return { role: 'assistant', content: row.content === '' ? null : row.content, tool_calls: toolCalls };
}
