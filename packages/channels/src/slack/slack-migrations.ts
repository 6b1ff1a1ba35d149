/**
 * The `slack` migration track in mesh.db. The shared `channels` track (the delivery core) holds
 * users, pairing and the inbound spool; this one holds only the Slack messages taken in that were
 * not chats (pairing, commands), so a replayed event does not answer them twice.
 * Append only: never edit a step that has shipped.
 */
export const SLACK_MIGRATIONS: readonly string[] = [
  `CREATE TABLE slack_taken_in (
    key TEXT PRIMARY KEY,
    at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX slack_taken_in_by_time ON slack_taken_in (at);`,
];

/** The name of the track (`featureDatabase('slack', SLACK_MIGRATIONS)`). */
export const SLACK_FEATURE = 'slack';
