/**
 * The `discord` migration track in mesh.db: the Discord messages taken in, by id. Chats are
 * deduplicated by the delivery spool (the `channels` track, which also holds Discord's users and
 * pairing codes); this table covers the rest (`/pair`, commands, button presses), so a message the
 * Gateway replays after a RESUME never gets a second answer of any kind. Append only.
 */
export const DISCORD_MIGRATIONS: readonly string[] = [
  `CREATE TABLE discord_handled (
    message_id TEXT PRIMARY KEY,
    at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX discord_handled_by_time ON discord_handled (at);`,
];

/** The name of the track (`featureDatabase('discord', DISCORD_MIGRATIONS)`). */
export const DISCORD_FEATURE = 'discord';
