import { join } from 'node:path';
import { type Database, migrate, openDatabase } from '@openlegion/infra/sqlite';
import type { SubagentRecord, SubagentSpec, SubagentState } from './subagent-manager.js';
import type { ProgressStep } from './subagent-progress.js';

/** Schema steps of the subagent runs (feature `subagents` in agent.db). Append only. */
const SUBAGENT_MIGRATIONS: readonly string[] = [
  `CREATE TABLE subagent_runs (
     id TEXT PRIMARY KEY,
     parent_conversation TEXT,
     trace_id TEXT,
     depth INTEGER NOT NULL,
     task TEXT NOT NULL,
     prompt TEXT,
     role TEXT NOT NULL,
     tools TEXT NOT NULL,
     squad TEXT,
     timeout_ms INTEGER NOT NULL,
     max_tokens INTEGER NOT NULL,
     state TEXT NOT NULL,
     started_at INTEGER NOT NULL,
     ended_at INTEGER,
     tokens INTEGER NOT NULL DEFAULT 0,
     result TEXT,
     captured TEXT,
     restarts INTEGER NOT NULL DEFAULT 0,
     collected_at INTEGER,
     delivered_at INTEGER
   ) STRICT`,
  // The child's finished tool calls, as JSON: a re-run goes on from them (subagent-progress.ts).
  'ALTER TABLE subagent_runs ADD COLUMN progress TEXT',
];

interface Row {
  id: string;
  parent_conversation: string | null;
  trace_id: string | null;
  depth: number;
  task: string;
  prompt: string | null;
  role: string;
  tools: string;
  squad: string | null;
  timeout_ms: number;
  max_tokens: number;
  state: SubagentState;
  started_at: number;
  ended_at: number | null;
  tokens: number;
  result: string | null;
  captured: string | null;
  restarts: number;
  collected_at: number | null;
  delivered_at: number | null;
  progress: string | null;
}

/** A run as persisted: its record and the spec it was spawned with (what a re-run needs). */
export interface StoredRun {
  record: SubagentRecord;
  spec: SubagentSpec;
  /** When its answer was returned by `subagent_result` (it then never goes out as a message). */
  collectedAt?: number;
  /** The tool calls it finished, kept for a re-run. */
  progress: ProgressStep[];
}

/**
 * The subagent runs in the agent's own SQLite (`<dataDir>/agent.db`, on the `/data` volume): a
 * run survives the container being replaced, so after a restart it is re-run and its answer still
 * reaches the agent once. Writes are synchronous: a state seen by the model is on disk.
 */
export class SubagentStore {
  readonly #db: Database;

  private constructor(db: Database) {
    this.#db = db;
  }

  /** `<dataDir>/agent.db`, or `:memory:` (a manager without a data folder, in tests). */
  static open(dataDir: string | ':memory:'): SubagentStore {
    const db = openDatabase(dataDir === ':memory:' ? dataDir : join(dataDir, 'agent.db'));
    try {
      migrate(db, [{ feature: 'subagents', steps: SUBAGENT_MIGRATIONS }]);
    } catch (error) {
      db.close();
      throw error;
    }
    return new SubagentStore(db);
  }

  insert(record: SubagentRecord, spec: SubagentSpec): void {
    this.#db
      .prepare(
        `INSERT INTO subagent_runs (id, parent_conversation, trace_id, depth, task, prompt, role, tools,
           squad, timeout_ms, max_tokens, state, started_at, tokens, restarts)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.id,
        spec.parentConversation ?? null,
        spec.traceId ?? null,
        record.depth,
        spec.task,
        spec.prompt ?? null,
        spec.role,
        JSON.stringify(spec.tools),
        spec.squad ?? null,
        spec.timeoutMs,
        spec.maxTokens,
        record.state,
        record.startedAt,
        record.tokens,
        record.restarts,
      );
  }

  /** Write what changes while a run lives: state, tokens, answer, restarts, delivery. */
  update(record: SubagentRecord): void {
    this.#db
      .prepare(
        `UPDATE subagent_runs SET state = ?, ended_at = ?, tokens = ?, result = ?, captured = ?,
           restarts = ?, delivered_at = ? WHERE id = ?`,
      )
      .run(
        record.state,
        record.endedAt ?? null,
        record.tokens,
        record.result ?? null,
        record.captured ? JSON.stringify(record.captured) : null,
        record.restarts,
        record.deliveredAt ?? null,
        record.id,
      );
  }

  setTokens(id: string, tokens: number): void {
    this.#db.prepare('UPDATE subagent_runs SET tokens = ? WHERE id = ?').run(tokens, id);
  }

  setProgress(id: string, steps: readonly ProgressStep[]): void {
    this.#db.prepare('UPDATE subagent_runs SET progress = ? WHERE id = ?').run(JSON.stringify(steps), id);
  }

  markCollected(id: string, at: number): void {
    this.#db
      .prepare('UPDATE subagent_runs SET collected_at = ? WHERE id = ? AND collected_at IS NULL')
      .run(at, id);
  }

  /** Every run, oldest first. */
  all(): StoredRun[] {
    return this.#db
      .prepare<[], Row>('SELECT * FROM subagent_runs ORDER BY started_at, rowid')
      .all()
      .map(toRun);
  }

  delete(ids: readonly string[]): void {
    const remove = this.#db.prepare('DELETE FROM subagent_runs WHERE id = ?');
    this.#db.transaction(() => {
      for (const id of ids) remove.run(id);
    })();
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

function toRun(row: Row): StoredRun {
  const record: SubagentRecord = {
    id: row.id,
    task: row.task,
    role: row.role,
    depth: row.depth,
    state: row.state,
    startedAt: row.started_at,
    tokens: row.tokens,
    restarts: row.restarts,
    ...(row.ended_at !== null ? { endedAt: row.ended_at } : {}),
    ...(row.result !== null ? { result: row.result } : {}),
    ...(row.squad !== null ? { squad: row.squad } : {}),
    ...(row.captured !== null ? { captured: JSON.parse(row.captured) as SubagentRecord['captured'] } : {}),
    ...(row.delivered_at !== null ? { deliveredAt: row.delivered_at } : {}),
  };
  const spec: SubagentSpec = {
    task: row.task,
    role: row.role,
    tools: JSON.parse(row.tools) as SubagentSpec['tools'],
    timeoutMs: row.timeout_ms,
    maxTokens: row.max_tokens,
    parentDepth: row.depth - 1,
    ...(row.prompt !== null ? { prompt: row.prompt } : {}),
    ...(row.squad !== null ? { squad: row.squad } : {}),
    ...(row.trace_id !== null ? { traceId: row.trace_id } : {}),
    ...(row.parent_conversation !== null ? { parentConversation: row.parent_conversation } : {}),
  };
  return {
    record,
    spec,
    progress: row.progress === null ? [] : (JSON.parse(row.progress) as ProgressStep[]),
    ...(row.collected_at !== null ? { collectedAt: row.collected_at } : {}),
  };
}
