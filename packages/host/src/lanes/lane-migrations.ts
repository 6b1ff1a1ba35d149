/** The lanes' schema steps (feature `lanes`). Append only: never edit a step that has shipped. */
export const LANE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE lane_items (
    id INTEGER PRIMARY KEY,
    agent TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('chat', 'task', 'heartbeat')),
    mode TEXT NOT NULL CHECK (mode IN ('followup', 'steer', 'collect', 'interrupt')),
    conversation_id TEXT NOT NULL,
    message TEXT NOT NULL,
    source TEXT NOT NULL,
    source_ref TEXT,
    idempotency_key TEXT NOT NULL UNIQUE,
    trace_id TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled', 'steered')),
    not_before INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    result_text TEXT,
    error_code TEXT,
    error_message TEXT,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    delivered_at INTEGER
  ) STRICT;
  CREATE INDEX lane_items_queued ON lane_items(agent, state, id);
  `,
  // Costs find the lane item a call was made for by its trace id.
  'CREATE INDEX lane_items_trace ON lane_items(trace_id, agent);',
];
