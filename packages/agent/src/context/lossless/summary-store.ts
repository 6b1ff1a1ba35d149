import { type Database, migrate, transaction } from '@openlegion/infra/sqlite';
import type { Logger } from 'pino';
import { z } from 'zod';

/** How a summary was made: the fast tier's normal or aggressive prompt, or cut deterministically. */
export const SUMMARY_MODES = ['normal', 'aggressive', 'truncated'] as const;
export type SummaryMode = (typeof SUMMARY_MODES)[number];

/**
 * One node of a conversation's summary DAG. A leaf (depth 0) stands for a span of messages; a
 * condensed summary (depth ≥ 1) for its children, whose spans it joins. Spans are positions in the
 * conversation (0-based, end exclusive); the stored message of position `i` has `seq` `i + 1`.
 */
export interface SummaryNode {
  id: number;
  conversationId: string;
  depth: number;
  start: number;
  end: number;
  children: number[];
  parentId: number | null;
  content: string;
  tokens: number;
  mode: SummaryMode;
  /** Fingerprint of the span's last message: tells a conversation that was reset and regrown. */
  anchor: string;
  createdAt: number;
}

export type NewSummary = Omit<SummaryNode, 'id' | 'parentId'>;

/** A stored message as the lcm tools show it. */
export interface StoredLine {
  conversationId: string;
  seq: number;
  role: string;
  content: string;
  toolCalls: string | null;
}

/** Schema steps of the lossless store. Append only, never edit a step that shipped. */
const LCM_MIGRATIONS: readonly string[] = [
  `CREATE TABLE lcm_summaries (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     conversation_id TEXT NOT NULL,
     depth INTEGER NOT NULL,
     start_index INTEGER NOT NULL,
     end_index INTEGER NOT NULL,
     children TEXT NOT NULL,
     parent_id INTEGER,
     content TEXT NOT NULL,
     tokens INTEGER NOT NULL,
     mode TEXT NOT NULL,
     anchor TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX lcm_summaries_conversation ON lcm_summaries (conversation_id, start_index)`,
];

interface SummaryRow {
  id: number;
  conversation_id: string;
  depth: unknown;
  start_index: unknown;
  end_index: unknown;
  children: unknown;
  parent_id: unknown;
  content: unknown;
  tokens: unknown;
  mode: unknown;
  anchor: unknown;
  created_at: unknown;
}

const childrenSchema = z.array(z.number().int().positive());
const rowSchema = z
  .object({
    id: z.number().int().positive(),
    conversation_id: z.string().min(1),
    depth: z.number().int().min(0).max(64),
    start_index: z.number().int().min(0),
    end_index: z.number().int().min(1),
    children: z.string(),
    parent_id: z.number().int().positive().nullable(),
    content: z.string().min(1),
    tokens: z.number().int().min(0),
    mode: z.enum(SUMMARY_MODES),
    anchor: z.string(),
    created_at: z.number(),
  })
  .refine((row) => row.start_index < row.end_index, 'the span is empty');

/** Characters a LIKE term may have, and terms a search may have: bounded input, no regex. */
export const MAX_TERM_CHARS = 200;
export const MAX_TERMS = 8;

/**
 * The summary DAG of every conversation, in the agent's database next to the conversation store's
 * `messages` table (which it reads, never writes). A row this code cannot read (damaged, or written
 * by a newer version) is skipped with a warning: its messages stay searchable and expandable.
 */
export class SummaryStore {
  readonly #db: Database;
  readonly #logger: Logger | undefined;
  /** Damaged rows already warned about (one warning each, not one per prompt). */
  readonly #warned = new Set<number>();

  constructor(db: Database, logger?: Logger) {
    migrate(db, [{ feature: 'lcm', steps: LCM_MIGRATIONS }]);
    this.#db = db;
    this.#logger = logger;
  }

  /** Every readable summary of a conversation, oldest span first. */
  all(conversationId: string): SummaryNode[] {
    const rows = this.#db
      .prepare<[string], SummaryRow>(
        'SELECT * FROM lcm_summaries WHERE conversation_id = ? ORDER BY start_index, depth DESC',
      )
      .all(conversationId);
    return rows.flatMap((row) => this.#read(row) ?? []);
  }

  /** The summaries the prompt shows: readable, and not condensed into a readable parent. */
  active(conversationId: string): SummaryNode[] {
    const nodes = this.all(conversationId);
    const ids = new Set(nodes.map((node) => node.id));
    return nodes.filter((node) => node.parentId === null || !ids.has(node.parentId));
  }

  get(id: number): SummaryNode | undefined {
    const row = this.#db.prepare<[number], SummaryRow>('SELECT * FROM lcm_summaries WHERE id = ?').get(id);
    return row ? this.#read(row) : undefined;
  }

  /** Store a summary; when it condenses others, they get it as parent (atomically). */
  add(summary: NewSummary): SummaryNode {
    return transaction(this.#db, () => {
      const info = this.#db
        .prepare(
          `INSERT INTO lcm_summaries (conversation_id, depth, start_index, end_index, children, parent_id,
             content, tokens, mode, anchor, created_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)`,
        )
        .run(
          summary.conversationId,
          summary.depth,
          summary.start,
          summary.end,
          JSON.stringify(summary.children),
          summary.content,
          summary.tokens,
          summary.mode,
          summary.anchor,
          summary.createdAt,
        );
      const id = Number(info.lastInsertRowid);
      const adopt = this.#db.prepare('UPDATE lcm_summaries SET parent_id = ? WHERE id = ?');
      for (const child of summary.children) adopt.run(id, child);
      return { ...summary, id, parentId: null };
    });
  }

  /** Forget a conversation's summaries (it was reset: the messages they stood for are gone). */
  forget(conversationId: string): void {
    this.#db.prepare('DELETE FROM lcm_summaries WHERE conversation_id = ?').run(conversationId);
  }

  /** Stored messages `[start, end)` of a conversation (positions, not seqs). */
  messages(conversationId: string, start: number, end: number): StoredLine[] {
    return this.#db
      .prepare<[string, number, number], MessageRow>(
        `SELECT conversation_id, seq, role, content, tool_calls FROM messages
         WHERE conversation_id = ? AND seq > ? AND seq <= ? ORDER BY seq`,
      )
      .all(conversationId, start, end)
      .map(toLine);
  }

  /**
   * Messages whose text holds every term (case-insensitive for ASCII), newest first. Terms are
   * matched literally with LIKE (`%` and `_` escaped): a pattern is never compiled as a regex.
   */
  grepMessages(terms: readonly string[], limit: number, conversationId?: string): StoredLine[] {
    const { where, params } = likeClause(['content', "COALESCE(tool_calls, '')"], terms);
    const scope = conversationId === undefined ? '' : ' AND conversation_id = ?';
    return this.#db
      .prepare<unknown[], MessageRow>(
        `SELECT conversation_id, seq, role, content, tool_calls FROM messages
         WHERE ${where}${scope} ORDER BY seq DESC LIMIT ?`,
      )
      .all(...params, ...(conversationId === undefined ? [] : [conversationId]), limit)
      .map(toLine);
  }

  /** Readable summaries whose text holds every term, newest first. */
  grepSummaries(terms: readonly string[], limit: number, conversationId?: string): SummaryNode[] {
    const { where, params } = likeClause(['content'], terms);
    const scope = conversationId === undefined ? '' : ' AND conversation_id = ?';
    return this.#db
      .prepare<unknown[], SummaryRow>(
        `SELECT * FROM lcm_summaries WHERE ${where}${scope} ORDER BY id DESC LIMIT ?`,
      )
      .all(...params, ...(conversationId === undefined ? [] : [conversationId]), limit)
      .flatMap((row) => this.#read(row) ?? []);
  }

  #read(row: SummaryRow): SummaryNode | undefined {
    const parsed = rowSchema.safeParse(row);
    const children = parsed.success ? childrenSchema.safeParse(safeJson(parsed.data.children)) : undefined;
    if (!parsed.success || !children?.success) {
      if (!this.#warned.has(row.id)) {
        this.#warned.add(row.id);
        this.#logger?.warn(
          { summary: row.id, conversation: row.conversation_id },
          'lcm summary row is unreadable; skipped (its messages stay searchable)',
        );
      }
      return undefined;
    }
    const data = parsed.data;
    return {
      id: data.id,
      conversationId: data.conversation_id,
      depth: data.depth,
      start: data.start_index,
      end: data.end_index,
      children: children.data,
      parentId: data.parent_id,
      content: data.content,
      tokens: data.tokens,
      mode: data.mode,
      anchor: data.anchor,
      createdAt: data.created_at,
    };
  }
}

interface MessageRow {
  conversation_id: string;
  seq: number;
  role: string;
  content: string;
  tool_calls: string | null;
}

function toLine(row: MessageRow): StoredLine {
  return {
    conversationId: row.conversation_id,
    seq: row.seq,
    role: row.role,
    content: row.content,
    toolCalls: row.tool_calls,
  };
}

/** `(col1 LIKE ? OR col2 LIKE ?) AND …` over every term, with LIKE's wildcards escaped. */
function likeClause(columns: readonly string[], terms: readonly string[]) {
  const params: string[] = [];
  const clauses = terms.map((term) => {
    const pattern = `%${term.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    params.push(...columns.map(() => pattern));
    return `(${columns.map((column) => `${column} LIKE ? ESCAPE '\\'`).join(' OR ')})`;
  });
  return { where: clauses.join(' AND '), params };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
