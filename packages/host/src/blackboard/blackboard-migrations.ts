/** The blackboard's schema steps (feature `blackboard`). Append only: never edit a step that has shipped. */
export const BLACKBOARD_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE blackboard_entries (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    version INTEGER NOT NULL,
    updated_by TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    expires_at INTEGER
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX blackboard_entries_expiry ON blackboard_entries(expires_at) WHERE expires_at IS NOT NULL;
  CREATE TABLE blackboard_audit (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    version INTEGER NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('put', 'delete', 'expire')),
    by TEXT NOT NULL,
    at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX blackboard_audit_key ON blackboard_audit(key, id);
  `,
  // Each writer's oldest audit rows are pruned past limits.audit_rows_per_agent.
  'CREATE INDEX blackboard_audit_by ON blackboard_audit(by, id);',
];
