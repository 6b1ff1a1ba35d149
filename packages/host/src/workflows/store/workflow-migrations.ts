/** The workflows' schema steps (feature `workflows`). Append only: never edit a step that has shipped. */
export const WORKFLOW_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE workflow_runs (
    id TEXT PRIMARY KEY,
    workflow TEXT NOT NULL,
    version TEXT NOT NULL,
    definition TEXT NOT NULL,
    inputs TEXT NOT NULL,
    trigger TEXT NOT NULL,
    trigger_key TEXT UNIQUE,
    trace_id TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('running', 'succeeded', 'failed', 'cancelled', 'rejected')),
    error_code TEXT,
    error_message TEXT,
    created_at INTEGER NOT NULL,
    deadline_at INTEGER,
    finished_at INTEGER
  ) STRICT;
  CREATE INDEX workflow_runs_state ON workflow_runs(state);
  CREATE TABLE workflow_steps (
    run_id TEXT NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
    step_id TEXT NOT NULL,
    item INTEGER NOT NULL,
    item_value TEXT,
    state TEXT NOT NULL,
    agent TEXT,
    attempt INTEGER NOT NULL DEFAULT 0,
    lane_key TEXT,
    lane_item_id INTEGER,
    approved INTEGER NOT NULL DEFAULT 0,
    note TEXT,
    output TEXT,
    error_code TEXT,
    error_message TEXT,
    not_before INTEGER,
    deadline_at INTEGER,
    waiting_since INTEGER,
    started_at INTEGER,
    finished_at INTEGER,
    cost_usd REAL,
    PRIMARY KEY (run_id, step_id, item)
  ) STRICT;
  CREATE TABLE workflow_cron (
    workflow TEXT PRIMARY KEY,
    schedule TEXT NOT NULL,
    timezone TEXT,
    next_run_at INTEGER
  ) STRICT;
  `,
];
