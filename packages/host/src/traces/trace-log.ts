import type { Database } from '@openlegion/infra/sqlite';
import type { TraceEvent, TraceSummary } from '@openlegion/protocol';
import { OwnerRowCap } from '../server/index.js';

export type { TraceEvent, TraceSummary };

/** The traces' schema steps (feature `traces`). Append only: never edit a step that has shipped. */
export const TRACE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE trace_events (
    id INTEGER PRIMARY KEY,
    trace_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    hop TEXT NOT NULL,
    agent TEXT,
    detail TEXT NOT NULL
  ) STRICT;
  CREATE INDEX trace_events_trace ON trace_events(trace_id, id);
  CREATE INDEX trace_events_at ON trace_events(at);
  `,
  // Each agent's oldest hops are pruned past limits.trace_rows_per_agent.
  'CREATE INDEX trace_events_agent ON trace_events(agent, id);',
];

interface EventRow extends Omit<TraceEvent, 'detail'> {
  detail: string;
}

/**
 * Trace events in mesh.db, kept for a bounded time; each agent keeps its newest `keepPerAgent`
 * hops (pruned as it adds more), so an agent naming trace ids of its own cannot fill the disk.
 */
export class TraceLog {
  readonly #db: Database;
  readonly #insert;
  readonly #perAgent: OwnerRowCap;

  constructor(db: Database, keepPerAgent: number) {
    this.#db = db;
    this.#insert = db.prepare<EventRow>(
      'INSERT INTO trace_events (trace_id, at, hop, agent, detail) VALUES (@trace_id, @at, @hop, @agent, @detail)',
    );
    this.#perAgent = new OwnerRowCap(db, { table: 'trace_events', ownerColumn: 'agent', keep: keepPerAgent });
  }

  record(event: TraceEvent): void {
    this.#insert.run({ ...event, detail: JSON.stringify(event.detail) });
    if (event.agent !== null) this.#perAgent.added(event.agent);
  }

  events(traceId: string): TraceEvent[] {
    return this.#db
      .prepare<[string], EventRow>(
        'SELECT trace_id, at, hop, agent, detail FROM trace_events WHERE trace_id = ? ORDER BY id',
      )
      .all(traceId)
      .map((row) => ({ ...row, detail: JSON.parse(row.detail) }));
  }

  /** The newest traces first, each summarised. */
  recent(limit: number): TraceSummary[] {
    const rows = this.#db
      .prepare<
        [number],
        {
          trace_id: string;
          started_at: number;
          ended_at: number;
          hops: number;
          agents: string | null;
          first_id: number;
        }
      >(
        `SELECT trace_id, min(at) AS started_at, max(at) AS ended_at, count(*) AS hops,
                group_concat(DISTINCT agent) AS agents, min(id) AS first_id
           FROM trace_events GROUP BY trace_id ORDER BY max(id) DESC LIMIT ?`,
      )
      .all(limit);
    const hopOf = this.#db.prepare<[number], { hop: string }>('SELECT hop FROM trace_events WHERE id = ?');
    return rows.map((row) => ({
      trace_id: row.trace_id,
      started_at: row.started_at,
      ended_at: row.ended_at,
      hops: row.hops,
      agents: row.agents ? row.agents.split(',') : [],
      entry: hopOf.get(row.first_id)?.hop ?? '',
    }));
  }

  /** Hops older than `olderThan`, and each agent's past its newest `keepPerAgent`. */
  prune(olderThan: number): number {
    return (
      this.#db.prepare('DELETE FROM trace_events WHERE at < ?').run(olderThan).changes +
      this.#perAgent.pruneAll()
    );
  }
}
