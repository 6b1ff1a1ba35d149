import type { Database } from '@openlegion/infra/sqlite';
import type { AgentState } from '@openlegion/protocol';

export type AgentRuntimeKind = 'docker' | 'process' | 'swarm';

/** One row of `agents`: the last known state of an agent, kept across host restarts. */
export interface AgentRow {
  name: string;
  state: AgentState;
  runtime: AgentRuntimeKind;
  container: string | null;
  url: string | null;
  startedAt: string | null;
  readyAt: string | null;
  stoppedAt: string | null;
  lastError: string | null;
}

/** Columns `setState` may change together with the state. */
export type AgentStateChanges = Partial<
  Pick<AgentRow, 'container' | 'url' | 'readyAt' | 'stoppedAt' | 'lastError'>
>;

interface AgentColumns {
  name: string;
  state: string;
  runtime: string;
  container: string | null;
  url: string | null;
  started_at: string | null;
  ready_at: string | null;
  stopped_at: string | null;
  last_error: string | null;
}

const CHANGE_COLUMNS = {
  container: 'container',
  url: 'url',
  readyAt: 'ready_at',
  stoppedAt: 'stopped_at',
  lastError: 'last_error',
} as const satisfies Record<keyof AgentStateChanges, string>;

/** Typed access to the `agents` table. */
export class AgentsRepository {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Insert the agent or replace every column of its row. */
  upsert(row: AgentRow): void {
    this.#db
      .prepare(
        `INSERT INTO agents (name, state, runtime, container, url, started_at, ready_at, stopped_at, last_error)
         VALUES (@name, @state, @runtime, @container, @url, @started_at, @ready_at, @stopped_at, @last_error)
         ON CONFLICT(name) DO UPDATE SET state = excluded.state, runtime = excluded.runtime,
           container = excluded.container, url = excluded.url, started_at = excluded.started_at,
           ready_at = excluded.ready_at, stopped_at = excluded.stopped_at, last_error = excluded.last_error`,
      )
      .run(toColumns(row));
  }

  /** Set the state and, in the same statement, any of the columns in `changes`. */
  setState(name: string, state: AgentState, changes: AgentStateChanges = {}): void {
    const assignments = ['state = @state'];
    const params: Record<string, string | null> = { name, state };
    for (const [key, column] of Object.entries(CHANGE_COLUMNS)) {
      const value = changes[key as keyof AgentStateChanges];
      if (value === undefined) continue;
      assignments.push(`${column} = @${column}`);
      params[column] = value;
    }
    this.#db.prepare(`UPDATE agents SET ${assignments.join(', ')} WHERE name = @name`).run(params);
  }

  get(name: string): AgentRow | undefined {
    const row = this.#db.prepare<[string], AgentColumns>('SELECT * FROM agents WHERE name = ?').get(name);
    return row && fromColumns(row);
  }

  list(): AgentRow[] {
    return this.#db.prepare<[], AgentColumns>('SELECT * FROM agents ORDER BY name').all().map(fromColumns);
  }

  remove(name: string): void {
    this.#db.prepare('DELETE FROM agents WHERE name = ?').run(name);
  }
}

function toColumns(row: AgentRow): AgentColumns {
  return {
    name: row.name,
    state: row.state,
    runtime: row.runtime,
    container: row.container,
    url: row.url,
    started_at: row.startedAt,
    ready_at: row.readyAt,
    stopped_at: row.stoppedAt,
    last_error: row.lastError,
  };
}

function fromColumns(columns: AgentColumns): AgentRow {
  return {
    name: columns.name,
    // Only this repository writes these columns, from the typed values above.
    state: columns.state as AgentState,
    runtime: columns.runtime as AgentRuntimeKind,
    container: columns.container,
    url: columns.url,
    startedAt: columns.started_at,
    readyAt: columns.ready_at,
    stoppedAt: columns.stopped_at,
    lastError: columns.last_error,
  };
}
