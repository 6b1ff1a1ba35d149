/**
 * The `telegram` migration track in mesh.db: paired users, pairing codes and attempts, per-user
 * preferences, conversations (private and per group) and the last update handled. Append only: never edit a step that has shipped.
 */
export const TELEGRAM_MIGRATIONS: readonly string[] = [
  `CREATE TABLE telegram_users (
    user_id INTEGER PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('owner', 'allowed')),
    name TEXT NOT NULL DEFAULT '',
    paired_at INTEGER NOT NULL,
    active_agent TEXT,
    debug INTEGER NOT NULL DEFAULT 0
  ) STRICT;
  CREATE UNIQUE INDEX telegram_one_owner ON telegram_users (role) WHERE role = 'owner';
  CREATE TABLE telegram_conversations (
    user_id INTEGER NOT NULL,
    agent TEXT NOT NULL,
    generation INTEGER NOT NULL,
    PRIMARY KEY (user_id, agent)
  ) STRICT;
  CREATE TABLE telegram_pairing_codes (
    code_hash BLOB PRIMARY KEY,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE telegram_pairing_attempts (
    user_id INTEGER NOT NULL,
    at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX telegram_pairing_attempts_by_user ON telegram_pairing_attempts (user_id, at);
  CREATE TABLE telegram_told_to_pair (user_id INTEGER PRIMARY KEY) STRICT;
  CREATE TABLE telegram_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;`,
  // A group chat's conversation with an agent is the group's, not the private one of whoever wrote.
  `CREATE TABLE telegram_group_conversations (
    chat_id INTEGER NOT NULL,
    agent TEXT NOT NULL,
    generation INTEGER NOT NULL,
    PRIMARY KEY (chat_id, agent)
  ) STRICT;`,
];

/** The name of the track (`featureDatabase('telegram', TELEGRAM_MIGRATIONS)`). */
export const TELEGRAM_FEATURE = 'telegram';
