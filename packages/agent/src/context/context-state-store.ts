import { type Database, migrate } from '@openlegion/infra/sqlite';
import { z } from 'zod';

/** One fact the flush or the summariser drew from the conversation. */
export interface ExtractedFact {
  key: string;
  value: string;
  category: string;
}

/**
 * What compaction has done to one conversation. The stored conversation is never changed: this is
 * a view over it (the first `covered` messages after the system prompt are stood in for by the
 * summaries), so a restart resumes it instead of summarising again.
 */
export interface ContextState {
  /** Messages after the system prompt that the summaries stand for. */
  covered: number;
  /** Fingerprint of the last covered message: tells a conversation that was reset and regrown. */
  anchor: string;
  /** Dual summary, part one: who the user is, what they want and how. */
  userSummary: string;
  /** Dual summary, part two: what the conversation has been about and where it stands. */
  conversationSummary: string;
  /** What truncation dropped without a summary (user requests and tools used), newest last. */
  droppedDigest: string;
  /** Facts saved from this conversation, carried in the compacted prompt. */
  facts: ExtractedFact[];
  /** Compaction cycles done; a flush runs at most once per cycle. */
  cycle: number;
  /** The cycle whose flush has run (-1: none yet). */
  flushedCycle: number;
  /** Messages after the system prompt that a flush has already read. */
  flushedThrough: number;
  /** Failed compactions in a row (summariser errors); three trip the circuit breaker. */
  failures: number;
  /** Until when (epoch ms) the breaker keeps compaction off the summariser. */
  breakerUntil: number;
}

export const EMPTY_CONTEXT_STATE: Readonly<ContextState> = Object.freeze({
  covered: 0,
  anchor: '',
  userSummary: '',
  conversationSummary: '',
  droppedDigest: '',
  facts: [],
  cycle: 0,
  flushedCycle: -1,
  flushedThrough: 0,
  failures: 0,
  breakerUntil: 0,
});

/** Schema steps of the context feature. Append only, never edit a step that shipped. */
const CONTEXT_MIGRATIONS: readonly string[] = [
  `CREATE TABLE context_state (
     conversation_id TEXT PRIMARY KEY,
     state TEXT NOT NULL,
     updated_at INTEGER NOT NULL
   ) STRICT`,
];

const factSchema = z.object({ key: z.string(), value: z.string(), category: z.string() });
const stateSchema = z.object({
  covered: z.number().int().nonnegative(),
  anchor: z.string(),
  userSummary: z.string(),
  conversationSummary: z.string(),
  droppedDigest: z.string(),
  facts: z.array(factSchema),
  cycle: z.number().int().nonnegative(),
  flushedCycle: z.number().int(),
  flushedThrough: z.number().int().nonnegative(),
  failures: z.number().int().nonnegative(),
  breakerUntil: z.number().nonnegative(),
});

/**
 * Compaction state per conversation, one JSON row each (the state is read and written whole, and
 * its shape can grow without a migration). Shares the agent's database; the tables are its own.
 */
export class ContextStateStore {
  readonly #db: Database;

  constructor(db: Database) {
    migrate(db, [{ feature: 'context', steps: CONTEXT_MIGRATIONS }]);
    this.#db = db;
  }

  /** The conversation's state; a fresh one when none is stored or the stored one is unreadable. */
  load(conversationId: string): ContextState {
    const row = this.#db
      .prepare<[string], { state: string }>('SELECT state FROM context_state WHERE conversation_id = ?')
      .get(conversationId);
    if (!row) return { ...EMPTY_CONTEXT_STATE, facts: [] };
    const parsed = stateSchema.safeParse(safeJson(row.state));
    // A row this code cannot read (written by a newer version, or damaged) costs one recompaction.
    return parsed.success
      ? { ...EMPTY_CONTEXT_STATE, ...parsed.data }
      : { ...EMPTY_CONTEXT_STATE, facts: [] };
  }

  save(conversationId: string, state: ContextState, now: number): void {
    this.#db
      .prepare(
        `INSERT INTO context_state (conversation_id, state, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (conversation_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
      )
      .run(conversationId, JSON.stringify(state), now);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
