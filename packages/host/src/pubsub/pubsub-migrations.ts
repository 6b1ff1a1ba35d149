/** Pub/sub's schema steps (feature `pubsub`). Append only: never edit a step that has shipped. */
export const PUBSUB_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE pubsub_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    topic TEXT NOT NULL,
    payload TEXT NOT NULL,
    published_by TEXT NOT NULL,
    published_at INTEGER NOT NULL,
    trace_id TEXT
  ) STRICT;
  CREATE TABLE pubsub_subscriptions (
    id INTEGER PRIMARY KEY,
    agent TEXT NOT NULL,
    pattern TEXT NOT NULL,
    delivery TEXT NOT NULL CHECK (delivery IN ('stream', 'lane')),
    cursor INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (agent, pattern)
  ) STRICT;
  `,
  // Each publisher's oldest events are pruned past limits.pubsub_events_per_agent.
  'CREATE INDEX pubsub_events_publisher ON pubsub_events(published_by, id);',
];
