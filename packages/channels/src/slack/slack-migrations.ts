/**
 * The `slack` migration track in mesh.db: paired people (by Slack user id, with the DM the bot
 * answers them in), pairing codes and attempts, conversations, and the messages already taken in
 * (Slack retries an event it thinks was not acknowledged; a socket reconnect replays it).
 * Append only: never edit a step that has shipped.
 */
export const SLACK_MIGRATIONS: readonly string[] = [
  `CREATE TABLE slack_users (
    user_id TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('owner', 'allowed')),
    name TEXT NOT NULL DEFAULT '',
    dm_channel TEXT,
    paired_at INTEGER NOT NULL,
    active_agent TEXT,
    debug INTEGER NOT NULL DEFAULT 0
  ) STRICT;
  CREATE UNIQUE INDEX slack_one_owner ON slack_users (role) WHERE role = 'owner';
  CREATE TABLE slack_conversations (
    scope TEXT NOT NULL,
    agent TEXT NOT NULL,
    generation INTEGER NOT NULL,
    PRIMARY KEY (scope, agent)
  ) STRICT;
  CREATE TABLE slack_pairing_codes (
    code_hash BLOB PRIMARY KEY,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE slack_pairing_attempts (
    user_id TEXT NOT NULL,
    at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX slack_pairing_attempts_by_user ON slack_pairing_attempts (user_id, at);
  CREATE TABLE slack_told_to_pair (user_id TEXT PRIMARY KEY) STRICT;
  CREATE TABLE slack_taken_in (
    key TEXT PRIMARY KEY,
    at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX slack_taken_in_by_time ON slack_taken_in (at);`,
];

/** The name of the track (`featureDatabase('slack', SLACK_MIGRATIONS)`). */
export const SLACK_FEATURE = 'slack';
