/**
 * The `channels` migration track in mesh.db, shared by every platform: the inbound spool (one row
 * per platform message, unique per channel), the platform message ids of each reply as they are
 * sent, and the pairing and owner model keyed by channel (Telegram keeps its older `telegram_*`
 * tables behind the same interface). Append only: never edit a step that has shipped.
 */
export const CHANNELS_MIGRATIONS: readonly string[] = [
  `CREATE TABLE channel_inbound (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel TEXT NOT NULL,
    platform_id TEXT NOT NULL,
    conversation TEXT NOT NULL,
    sender TEXT NOT NULL,
    agent TEXT NOT NULL,
    text TEXT NOT NULL,
    reply_to TEXT,
    header TEXT,
    conversation_id TEXT,
    mode TEXT,
    show_usage INTEGER NOT NULL DEFAULT 0,
    received_at INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('accepted', 'running', 'answered', 'dead')),
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    answer TEXT,
    updated_at INTEGER NOT NULL,
    UNIQUE (channel, platform_id)
  ) STRICT;
  CREATE INDEX channel_inbound_open ON channel_inbound (channel, state);
  CREATE TABLE channel_reply_parts (
    inbound_id INTEGER NOT NULL REFERENCES channel_inbound (id) ON DELETE CASCADE,
    part INTEGER NOT NULL,
    message_id TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (inbound_id, part)
  ) STRICT;
  CREATE TABLE channel_users (
    channel TEXT NOT NULL,
    user_id TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('owner', 'allowed')),
    name TEXT NOT NULL DEFAULT '',
    paired_at INTEGER NOT NULL,
    active_agent TEXT,
    debug INTEGER NOT NULL DEFAULT 0,
    owner_conversation TEXT,
    PRIMARY KEY (channel, user_id)
  ) STRICT;
  CREATE UNIQUE INDEX channel_one_owner ON channel_users (channel, role) WHERE role = 'owner';
  CREATE TABLE channel_pairing_codes (
    channel TEXT NOT NULL,
    code_hash BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (channel, code_hash)
  ) STRICT;
  CREATE TABLE channel_pairing_attempts (
    channel TEXT NOT NULL,
    user_id TEXT NOT NULL,
    at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX channel_pairing_attempts_by_user ON channel_pairing_attempts (channel, user_id, at);
  CREATE TABLE channel_told_to_pair (channel TEXT NOT NULL, user_id TEXT NOT NULL, PRIMARY KEY (channel, user_id)) STRICT;`,
  // How each channel stands (connected, token rejected, rate limited, ...), for `openlegion status`.
  `CREATE TABLE channel_status (
    channel TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    updated_at INTEGER NOT NULL
  ) STRICT;`,
  // Conversations started anew (`/reset`): `base` (a person's DM, a channel) with `agent` is
  // `base-N` after N resets.
  `CREATE TABLE channel_conversations (
    channel TEXT NOT NULL,
    base TEXT NOT NULL,
    agent TEXT NOT NULL,
    generation INTEGER NOT NULL,
    PRIMARY KEY (channel, base, agent)
  ) STRICT;`,
];

/** The name of the track (`featureDatabase(CHANNELS_FEATURE, CHANNELS_MIGRATIONS)`). */
export const CHANNELS_FEATURE = 'channels';
