import type { Database } from '@openlegion/infra/sqlite';
import { type MeshConfig, type MeshEvent, OpenLegionError } from '@openlegion/protocol';
import { topicMatcher } from '../permissions/index.js';
import { OwnerRowCap } from '../server/index.js';

/** A durable subscription: events after `cursor` on topics matching `pattern` are owed to `agent`. */
export interface Subscription {
  id: number;
  agent: string;
  pattern: string;
  delivery: 'stream' | 'lane';
  /** The last event acknowledged (or handed to the lane). */
  cursor: number;
  created_at: number;
}

interface EventRow {
  id: number;
  topic: string;
  payload: string;
  published_by: string;
  published_at: number;
  trace_id: string | null;
}

const toEvent = (row: EventRow): MeshEvent => ({ ...row, payload: JSON.parse(row.payload) });

/** What bounds the log (mesh.yaml `limits`). */
export type PubsubLimits = Pick<MeshConfig['limits'], 'pubsub_payload_bytes' | 'pubsub_events_per_agent'>;

/**
 * The event log and the subscriptions with their cursors, in mesh.db. Payloads are capped, and each
 * publisher keeps its newest `pubsub_events_per_agent` events (pruned as it publishes).
 */
export class PubsubStore {
  readonly #db: Database;
  readonly #limits: PubsubLimits;
  readonly #perPublisher: OwnerRowCap;

  constructor(db: Database, limits: PubsubLimits) {
    this.#db = db;
    this.#limits = limits;
    this.#perPublisher = new OwnerRowCap(db, {
      table: 'pubsub_events',
      ownerColumn: 'published_by',
      keep: limits.pubsub_events_per_agent,
    });
  }

  /** Write an event; 413 MESH_VALUE_TOO_LARGE (nothing written) when its payload is past the cap. */
  append(event: Omit<MeshEvent, 'id'>): MeshEvent {
    const payload = JSON.stringify(event.payload);
    if (payload === undefined) throw new OpenLegionError('REQUEST_INVALID', 'payload: must be JSON');
    const size = Buffer.byteLength(payload);
    const max = this.#limits.pubsub_payload_bytes;
    if (size > max) {
      throw new OpenLegionError(
        'MESH_VALUE_TOO_LARGE',
        `payload: ${size} bytes of JSON for topic "${event.topic}"; pub/sub carries at most ${max} (limits.pubsub_payload_bytes)`,
        { details: { topic: event.topic, bytes: size, max, field: 'limits.pubsub_payload_bytes' } },
      );
    }
    const { lastInsertRowid } = this.#db
      .prepare(
        'INSERT INTO pubsub_events (topic, payload, published_by, published_at, trace_id) VALUES (?, ?, ?, ?, ?)',
      )
      .run(event.topic, payload, event.published_by, event.published_at, event.trace_id);
    this.#perPublisher.added(event.published_by);
    return { ...event, id: Number(lastInsertRowid) };
  }

  /** Events after `cursor` whose topic is `wanted` (a subscription's compiled pattern and permission), oldest first. */
  eventsAfter(cursor: number, wanted: (topic: string) => boolean, limit = 500): MeshEvent[] {
    const events: MeshEvent[] = [];
    const rows = this.#db
      .prepare<[number], EventRow>('SELECT * FROM pubsub_events WHERE id > ? ORDER BY id')
      .iterate(cursor);
    for (const row of rows) {
      if (!wanted(row.topic)) continue;
      events.push(toEvent(row));
      if (events.length >= limit) break;
    }
    return events;
  }

  /** The newest `limit` events, oldest first; with `topic`, only topics matching that pattern (compiled once). */
  recent(limit: number, topic?: string): MeshEvent[] {
    const matches = topic ? topicMatcher(topic) : () => true;
    return this.#db
      .prepare<[number], EventRow>('SELECT * FROM pubsub_events ORDER BY id DESC LIMIT ?')
      .all(limit * 10)
      .filter((row) => matches(row.topic))
      .slice(0, limit)
      .map(toEvent)
      .reverse();
  }

  lastEventId(): number {
    return (
      this.#db.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM pubsub_events').get()?.id ?? 0
    );
  }

  /** Subscribe (again): an existing subscription of the agent to the pattern is kept with its cursor. */
  subscribe(agent: string, pattern: string, delivery: Subscription['delivery'], now: number): Subscription {
    this.#db
      .prepare(
        `INSERT INTO pubsub_subscriptions (agent, pattern, delivery, cursor, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (agent, pattern) DO UPDATE SET delivery = excluded.delivery`,
      )
      .run(agent, pattern, delivery, this.lastEventId(), now);
    return this.#db
      .prepare<[string, string], Subscription>(
        'SELECT * FROM pubsub_subscriptions WHERE agent = ? AND pattern = ?',
      )
      .get(agent, pattern) as Subscription;
  }

  subscription(id: number): Subscription | undefined {
    return this.#db
      .prepare<[number], Subscription>('SELECT * FROM pubsub_subscriptions WHERE id = ?')
      .get(id);
  }

  subscriptions(agent?: string): Subscription[] {
    return agent === undefined
      ? this.#db.prepare<[], Subscription>('SELECT * FROM pubsub_subscriptions ORDER BY id').all()
      : this.#db
          .prepare<[string], Subscription>('SELECT * FROM pubsub_subscriptions WHERE agent = ? ORDER BY id')
          .all(agent);
  }

  unsubscribe(id: number): boolean {
    return this.#db.prepare('DELETE FROM pubsub_subscriptions WHERE id = ?').run(id).changes > 0;
  }

  /** Delete every subscription of `agent` (a temporary agent that ended); how many there were. */
  unsubscribeAgent(agent: string): number {
    return this.#db.prepare('DELETE FROM pubsub_subscriptions WHERE agent = ?').run(agent).changes;
  }

  /** Move a cursor forward (never back: a late ack of an older event changes nothing). */
  advance(id: number, eventId: number): void {
    this.#db.prepare('UPDATE pubsub_subscriptions SET cursor = max(cursor, ?) WHERE id = ?').run(eventId, id);
  }

  /**
   * Bounded retention: keep the newest `keep` events, none older than `olderThan`, and each
   * publisher's newest `pubsub_events_per_agent`.
   */
  prune(keep: number, olderThan: number): number {
    return (
      this.#db
        .prepare(
          'DELETE FROM pubsub_events WHERE id <= (SELECT max(id) FROM pubsub_events) - ? OR published_at < ?',
        )
        .run(keep, olderThan).changes + this.#perPublisher.pruneAll()
    );
  }
}
