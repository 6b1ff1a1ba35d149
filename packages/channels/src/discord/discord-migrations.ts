/**
 * The `discord` migration track in mesh.db: paired users (Discord ids are snowflake strings),
 * pairing codes and attempts, conversations (per DM user or per server channel), and the messages
 * taken in (the dedupe key of a replayed event). Append only: never edit a step that has shipped.
 */
export const DISCORD_MIGRATIONS: readonly string[] = [
  `CREATE TABLE discord_users (
    user_id TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('owner', 'allowed')),
    name TEXT NOT NULL DEFAULT '',
    paired_at INTEGER NOT NULL,
    active_agent TEXT,
    debug INTEGER NOT NULL DEFAULT 0
  ) STRICT;
  CREATE UNIQUE INDEX discord_one_owner ON discord_users (role) WHERE role = 'owner';
  CREATE TABLE discord_conversations (
    scope TEXT NOT NULL,
    agent TEXT NOT NULL,
    generation INTEGER NOT NULL,
    PRIMARY KEY (scope, agent)
  ) STRICT;
  CREATE TABLE discord_pairing_codes (
    code_hash BLOB PRIMARY KEY,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE discord_pairing_attempts (
    user_id TEXT NOT NULL,
    at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX discord_pairing_attempts_by_user ON discord_pairing_attempts (user_id, at);
  CREATE TABLE discord_told_to_pair (user_id TEXT PRIMARY KEY) STRICT;
  CREATE TABLE discord_handled (
    message_id TEXT PRIMARY KEY,
    at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX discord_handled_by_time ON discord_handled (at);`,
];

/** The name of the track (`featureDatabase('discord', DISCORD_MIGRATIONS)`). */
export const DISCORD_FEATURE = 'discord';
