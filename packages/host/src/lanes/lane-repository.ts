import type { Database } from '@openlegion/infra/sqlite';
import type { LaneItem, LaneItemState } from './lane-item.js';

interface Row {
  id: number;
  agent: string;
  kind: LaneItem['kind'];
  mode: LaneItem['mode'];
  conversation_id: string;
  message: string;
  source: LaneItem['source'];
  source_ref: string | null;
  idempotency_key: string;
  trace_id: string;
  state: LaneItemState;
  not_before: number;
  attempts: number;
  result_text: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  delivered_at: number | null;
}

const toItem = (row: Row): LaneItem => ({
  id: row.id,
  agent: row.agent,
  kind: row.kind,
  mode: row.mode,
  conversationId: row.conversation_id,
  message: row.message,
  source: row.source,
  sourceRef: row.source_ref,
  idempotencyKey: row.idempotency_key,
  traceId: row.trace_id,
  state: row.state,
  notBefore: row.not_before,
  attempts: row.attempts,
  resultText: row.result_text,
  errorCode: row.error_code,
  errorMessage: row.error_message,
  createdAt: row.created_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  deliveredAt: row.delivered_at,
});

export type NewLaneItem = Pick<
  LaneItem,
  | 'agent'
  | 'kind'
  | 'mode'
  | 'conversationId'
  | 'message'
  | 'source'
  | 'sourceRef'
  | 'idempotencyKey'
  | 'traceId'
  | 'notBefore'
  | 'createdAt'
>;

/** The lane items in mesh.db. Every write is synchronous: acknowledged work survives a host kill. */
export class LaneRepository {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Insert a queued item, or return the existing item with the same idempotency key. */
  insert(item: NewLaneItem): { item: LaneItem; created: boolean } {
    const existing = this.byKey(item.idempotencyKey);
    if (existing) return { item: existing, created: false };
    const { lastInsertRowid } = this.#db
      .prepare(
        `INSERT INTO lane_items (agent, kind, mode, conversation_id, message, source, source_ref,
           idempotency_key, trace_id, state, not_before, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)`,
      )
      .run(
        item.agent,
        item.kind,
        item.mode,
        item.conversationId,
        item.message,
        item.source,
        item.sourceRef,
        item.idempotencyKey,
        item.traceId,
        item.notBefore,
        item.createdAt,
      );
    return { item: this.require(Number(lastInsertRowid)), created: true };
  }

  get(id: number): LaneItem | undefined {
    const row = this.#db.prepare<[number], Row>('SELECT * FROM lane_items WHERE id = ?').get(id);
    return row && toItem(row);
  }

  require(id: number): LaneItem {
    const item = this.get(id);
    if (!item) throw new Error(`lane item ${id} does not exist`);
    return item;
  }

  byKey(key: string): LaneItem | undefined {
    const row = this.#db
      .prepare<[string], Row>('SELECT * FROM lane_items WHERE idempotency_key = ?')
      .get(key);
    return row && toItem(row);
  }

  /**
   * The item of `agent` a call under `traceId` was made for: the one running now (an agent runs
   * one item at a time), else the newest. Several items share a trace (the steps of a workflow run).
   */
  byTrace(traceId: string, agent: string): LaneItem | undefined {
    const row = this.#db
      .prepare<[string, string], Row>(
        "SELECT * FROM lane_items WHERE trace_id = ? AND agent = ? ORDER BY state = 'running' DESC, id DESC LIMIT 1",
      )
      .get(traceId, agent);
    return row && toItem(row);
  }

  /** The agent's queued items, oldest first. */
  queued(agent: string): LaneItem[] {
    return this.#db
      .prepare<[string], Row>("SELECT * FROM lane_items WHERE agent = ? AND state = 'queued' ORDER BY id")
      .all(agent)
      .map(toItem);
  }

  queuedCount(agent: string): number {
    const row = this.#db
      .prepare<[string], { count: number }>(
        "SELECT COUNT(*) AS count FROM lane_items WHERE agent = ? AND state = 'queued'",
      )
      .get(agent);
    return row?.count ?? 0;
  }

  /** Agents that have queued work. */
  agentsWithWork(): string[] {
    return this.#db
      .prepare<[], { agent: string }>("SELECT DISTINCT agent FROM lane_items WHERE state = 'queued'")
      .all()
      .map((row) => row.agent);
  }

  /** Merge a `collect` message into a queued item and push its dispatch time out. */
  collect(id: number, message: string, notBefore: number): void {
    this.#db
      .prepare(
        "UPDATE lane_items SET message = message || char(10) || ?, not_before = ? WHERE id = ? AND state = 'queued'",
      )
      .run(message, notBefore, id);
  }

  /**
   * The item to run next: an `interrupt` first, then the oldest; only items whose `notBefore` has
   * passed (a `collect` item waits out its window).
   */
  next(agent: string, now: number): LaneItem | undefined {
    const row = this.#db
      .prepare<[string, number], Row>(
        `SELECT * FROM lane_items WHERE agent = ? AND state = 'queued' AND not_before <= ?
         ORDER BY mode = 'interrupt' DESC, id LIMIT 1`,
      )
      .get(agent, now);
    return row && toItem(row);
  }

  /** When the agent's earliest waiting item becomes due, if any is waiting. */
  nextDueAt(agent: string): number | undefined {
    const row = this.#db
      .prepare<[string], { at: number | null }>(
        "SELECT MIN(not_before) AS at FROM lane_items WHERE agent = ? AND state = 'queued'",
      )
      .get(agent);
    return row?.at ?? undefined;
  }

  /** The newest queued `collect` item of a conversation still inside its window, to merge into. */
  openCollect(agent: string, conversationId: string, now: number): LaneItem | undefined {
    const row = this.#db
      .prepare<[string, string, number], Row>(
        `SELECT * FROM lane_items WHERE agent = ? AND conversation_id = ? AND state = 'queued'
           AND mode = 'collect' AND not_before > ? ORDER BY id DESC LIMIT 1`,
      )
      .get(agent, conversationId, now);
    return row && toItem(row);
  }

  markRunning(id: number, now: number): LaneItem {
    this.#db
      .prepare(
        "UPDATE lane_items SET state = 'running', started_at = ?, attempts = attempts + 1 WHERE id = ?",
      )
      .run(now, id);
    return this.require(id);
  }

  finish(
    id: number,
    outcome: {
      state: Exclude<LaneItemState, 'queued' | 'running'>;
      now: number;
      text?: string;
      code?: string;
      message?: string;
    },
  ): LaneItem {
    this.#db
      .prepare(
        `UPDATE lane_items SET state = ?, finished_at = ?, result_text = ?, error_code = ?, error_message = ?
         WHERE id = ?`,
      )
      .run(
        outcome.state,
        outcome.now,
        outcome.text ?? null,
        outcome.code ?? null,
        outcome.message ?? null,
        id,
      );
    return this.require(id);
  }

  markDelivered(id: number, now: number): void {
    this.#db
      .prepare('UPDATE lane_items SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL')
      .run(now, id);
  }

  /** Put a running item back in the queue (its agent went away, or the host is stopping). */
  requeue(id: number): void {
    this.#db.prepare("UPDATE lane_items SET state = 'queued' WHERE id = ? AND state = 'running'").run(id);
  }

  /** After a host restart: work that was running when the host died runs again. */
  requeueRunning(): number {
    return this.#db.prepare("UPDATE lane_items SET state = 'queued' WHERE state = 'running'").run().changes;
  }

  /** Finished work whose result never reached its source (the host died in between). */
  undelivered(): LaneItem[] {
    return this.#db
      .prepare<[], Row>(
        "SELECT * FROM lane_items WHERE state IN ('done', 'failed') AND delivered_at IS NULL ORDER BY id",
      )
      .all()
      .map(toItem);
  }

  /** The most recent items, newest first (the operator's view of the lanes). */
  recent(limit: number, agent?: string): LaneItem[] {
    const rows = agent
      ? this.#db
          .prepare<[string, number], Row>('SELECT * FROM lane_items WHERE agent = ? ORDER BY id DESC LIMIT ?')
          .all(agent, limit)
      : this.#db.prepare<[number], Row>('SELECT * FROM lane_items ORDER BY id DESC LIMIT ?').all(limit);
    return rows.map(toItem);
  }
}
