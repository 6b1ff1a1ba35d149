import type { Database } from '@openlegion/infra/sqlite';

export type AgentRunOutcome = 'stopped' | 'failed';

/** One start of an agent, from `starting` until it stopped or failed. */
export interface AgentRunRow {
  id: number;
  agent: string;
  startedAt: string;
  readyAt: string | null;
  stoppedAt: string | null;
  outcome: AgentRunOutcome | null;
}

interface AgentRunColumns {
  id: number;
  agent: string;
  started_at: string;
  ready_at: string | null;
  stopped_at: string | null;
  outcome: string | null;
}

/** Typed access to the `agent_runs` table. The agent's row must exist first. */
export class AgentRunsRepository {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Record a new run; returns its id. */
  start(agent: string, startedAt: string): number {
    const result = this.#db
      .prepare('INSERT INTO agent_runs (agent, started_at) VALUES (?, ?)')
      .run(agent, startedAt);
    return Number(result.lastInsertRowid);
  }

  markReady(id: number, readyAt: string): void {
    this.#db.prepare('UPDATE agent_runs SET ready_at = ? WHERE id = ?').run(readyAt, id);
  }

  finish(id: number, stoppedAt: string, outcome: AgentRunOutcome): void {
    this.#db
      .prepare('UPDATE agent_runs SET stopped_at = ?, outcome = ? WHERE id = ?')
      .run(stoppedAt, outcome, id);
  }

  /** The agent's runs, newest first. */
  listFor(agent: string, limit = 50): AgentRunRow[] {
    return this.#db
      .prepare<[string, number], AgentRunColumns>(
        'SELECT * FROM agent_runs WHERE agent = ? ORDER BY id DESC LIMIT ?',
      )
      .all(agent, limit)
      .map((columns) => ({
        id: columns.id,
        agent: columns.agent,
        startedAt: columns.started_at,
        readyAt: columns.ready_at,
        stoppedAt: columns.stopped_at,
        // Only this repository writes outcomes, from the typed values above.
        outcome: columns.outcome as AgentRunOutcome | null,
      }));
  }
}
