/**
 * The agent registry's schema steps (feature `agents`; before per-feature tracking, mesh.db's
 * `user_version`).
 * Append only: never edit a migration that has shipped.
 */
export const REGISTRY_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE agents (
    name TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    runtime TEXT NOT NULL,
    container TEXT,
    url TEXT,
    started_at TEXT,
    ready_at TEXT,
    stopped_at TEXT,
    last_error TEXT
  ) STRICT;
  CREATE TABLE agent_runs (
    id INTEGER PRIMARY KEY,
    agent TEXT NOT NULL REFERENCES agents(name) ON DELETE CASCADE,
    started_at TEXT NOT NULL,
    ready_at TEXT,
    stopped_at TEXT,
    outcome TEXT
  ) STRICT;
  CREATE INDEX agent_runs_by_agent ON agent_runs(agent, id);
  `,
];
