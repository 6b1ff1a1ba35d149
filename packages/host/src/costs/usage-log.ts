import type { Database } from '@openlegion/infra/sqlite';
import type { SpendRow } from '@openlegion/protocol';
import { createUsageWriter, type UsageWriter } from './usage-writer.js';

/** The costs' schema steps (feature `costs`). Append only: never edit a step that has shipped. */
export const COST_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE llm_usage (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    agent TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    request_id TEXT NOT NULL,
    trace_id TEXT,
    estimated INTEGER NOT NULL DEFAULT 0
  ) STRICT;
  CREATE INDEX llm_usage_agent_at ON llm_usage(agent, at);
  CREATE INDEX llm_usage_at ON llm_usage(at);
  `,
  // Whose budget each call was charged to: its agent's, or a spawner's for its temporary agent.
  // Rows before this step were each charged to their own agent.
  `
  ALTER TABLE llm_usage ADD COLUMN billed_to TEXT;
  UPDATE llm_usage SET billed_to = agent;
  CREATE INDEX llm_usage_billed_to_at ON llm_usage(billed_to, at);
  CREATE TABLE cost_billing (
    agent TEXT PRIMARY KEY,
    billed_to TEXT NOT NULL,
    assigned_at INTEGER NOT NULL
  ) STRICT;
  `,
];

export interface UsageRecord {
  at: number;
  /** The agent that made the call. */
  agent: string;
  /** The agent whose budget it was charged to: `agent`, or the spawner of a temporary agent. */
  billed_to: string;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cost_usd: number;
  request_id: string;
  trace_id: string | null;
  /** 1 when the provider sent no usage and the tokens were estimated. */
  estimated: number;
}

/** Every LLM call's usage and cost, in mesh.db. */
export class UsageLog {
  readonly #db: Database;
  readonly #spent;
  readonly #billed;
  readonly #writer: UsageWriter;

  constructor(db: Database) {
    this.#db = db;
    this.#writer = createUsageWriter(
      db,
      `INSERT INTO llm_usage (at, agent, billed_to, model, prompt_tokens, completion_tokens, cached_tokens, cost_usd, request_id, trace_id, estimated)
       VALUES (@at, @agent, @billed_to, @model, @prompt_tokens, @completion_tokens, @cached_tokens, @cost_usd, @request_id, @trace_id, @estimated)`,
    );
    this.#spent = db.prepare<[string, number], { usd: number | null }>(
      'SELECT sum(cost_usd) AS usd FROM llm_usage WHERE agent = ? AND at >= ?',
    );
    this.#billed = db.prepare<[string, number], { usd: number | null }>(
      'SELECT sum(cost_usd) AS usd FROM llm_usage WHERE billed_to = ? AND at >= ?',
    );
  }

  /**
   * Write one call's usage; calls that end together share one commit (one disk sync), made off the
   * event loop when mesh.db is a file. Resolves once committed.
   */
  record(usage: UsageRecord): Promise<void> {
    return this.#writer.write({ ...usage });
  }

  /** Waits for the records in flight to be committed. */
  close(): Promise<void> {
    return this.#writer.close();
  }

  /** What `agent`'s own calls cost since `since` (ms), whoever paid. */
  spent(agent: string, since: number): number {
    return this.#spent.get(agent, since)?.usd ?? 0;
  }

  /** What was charged to `owner`'s budget since `since` (ms): its calls and its temporary agents'. */
  billed(owner: string, since: number): number {
    return this.#billed.get(owner, since)?.usd ?? 0;
  }

  /**
   * Spend per agent and model in buckets of `bucketMs` since `since` (the dashboard's cost chart):
   * one row per bucket that had calls, `at` the bucket's start.
   */
  spendSeries(
    since: number,
    bucketMs: number,
  ): { at: number; agent: string; model: string; cost_usd: number }[] {
    return this.#db
      .prepare<
        { since: number; bucket: number },
        { at: number; agent: string; model: string; cost_usd: number }
      >(
        `SELECT CAST(at / @bucket AS INTEGER) * @bucket AS at, agent, model, sum(cost_usd) AS cost_usd
           FROM llm_usage WHERE at >= @since
          GROUP BY 1, agent, model ORDER BY 1, agent, model`,
      )
      .all({ since, bucket: bucketMs });
  }

  /**
   * Spend per agent and model since `since`, grouped under whose budget paid: each budget's own
   * rows first, then its temporary agents'. With `agent`, its own calls and those billed to it.
   */
  spend(since: number, agent?: string): SpendRow[] {
    return this.#db
      .prepare<{ since: number; agent: string | null }, SpendRow>(
        `SELECT agent, billed_to, model, count(*) AS calls, sum(prompt_tokens) AS prompt_tokens,
                sum(completion_tokens) AS completion_tokens, sum(cost_usd) AS cost_usd
           FROM llm_usage
          WHERE at >= @since AND (@agent IS NULL OR agent = @agent OR billed_to = @agent)
          GROUP BY billed_to, agent, model ORDER BY billed_to, agent <> billed_to, agent, model`,
      )
      .all({ since, agent: agent ?? null });
  }
}
