import type { Clock } from '@openlegion/infra/clock';
import { type Database, migrate, transaction } from '@openlegion/infra/sqlite';
import type { ChannelName } from '@openlegion/protocol';
import { CHANNELS_FEATURE, CHANNELS_MIGRATIONS } from './channel-migrations.js';
import type { DeadLetter, DeliveryState, InboundMessage } from './delivery-contract.js';

/** A message in the spool, with where its delivery stands. */
export interface SpooledMessage extends InboundMessage {
  id: number;
  state: DeliveryState;
  /** Tries started so far (a restart mid-try counts it). */
  attempts: number;
  lastError: string | undefined;
  /** The agent's whole answer once its turn ended (a retry writes it again, never re-asks). */
  answer: string | undefined;
}

/** One message of a reply as the platform has it: written once, edited after. */
export interface SentPart {
  part: number;
  messageId: string;
  text: string;
}

interface InboundRow {
  id: number;
  channel: ChannelName;
  platform_id: string;
  conversation: string;
  sender: string;
  agent: string;
  text: string;
  reply_to: string | null;
  header: string | null;
  conversation_id: string | null;
  mode: string | null;
  show_usage: number;
  received_at: number;
  state: DeliveryState;
  attempts: number;
  last_error: string | null;
  answer: string | null;
  updated_at: number;
}

const PREVIEW_CHARS = 200;

const toMessage = (row: InboundRow): SpooledMessage => ({
  id: row.id,
  channel: row.channel,
  platformId: row.platform_id,
  conversation: row.conversation,
  sender: row.sender,
  agent: row.agent,
  text: row.text,
  receivedAt: row.received_at,
  ...(row.reply_to !== null ? { replyTo: row.reply_to } : {}),
  ...(row.header !== null ? { header: row.header } : {}),
  ...(row.conversation_id !== null ? { conversationId: row.conversation_id } : {}),
  ...(row.mode === 'steer' ? { mode: 'steer' as const } : {}),
  showUsage: row.show_usage === 1,
  state: row.state,
  attempts: row.attempts,
  lastError: row.last_error ?? undefined,
  answer: row.answer ?? undefined,
});

/**
 * The durable inbound spool in mesh.db (`channels` track): every message a channel takes in is a
 * row, unique per channel and platform id, so a replayed event is recognised and dropped. A row
 * goes accepted → running → answered, or dead once it kept failing; the platform ids of its
 * reply's messages are kept as they are sent, so a retry or a restart edits them.
 *
 * @example
 * const spool = new DeliverySpool(db, clock);
 * if (!spool.accept(message)) return; // seen before: a replay
 */
export class DeliverySpool {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    // Idempotent: the CLI gives a channel mesh.db with its own track; the spool brings its own.
    migrate(db, [{ feature: CHANNELS_FEATURE, steps: CHANNELS_MIGRATIONS }]);
  }

  /** Take a message in; false when this channel saw its platform id before (a replay or duplicate). */
  accept(message: InboundMessage): boolean {
    const result = this.db
      .prepare(
        `INSERT INTO channel_inbound (channel, platform_id, conversation, sender, agent, text, reply_to,
           header, conversation_id, mode, show_usage, received_at, state, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'accepted', ?)
         ON CONFLICT (channel, platform_id) DO NOTHING`,
      )
      .run(
        message.channel,
        message.platformId,
        message.conversation,
        message.sender,
        message.agent,
        message.text,
        message.replyTo ?? null,
        message.header ?? null,
        message.conversationId ?? null,
        message.mode ?? null,
        message.showUsage ? 1 : 0,
        message.receivedAt,
        this.clock.now(),
      );
    return result.changes > 0;
  }

  /** Whether this channel has taken in a message with this platform id (in any state). */
  has(channel: ChannelName, platformId: string): boolean {
    return (
      this.db
        .prepare<[string, string], { id: number }>(
          'SELECT id FROM channel_inbound WHERE channel = ? AND platform_id = ?',
        )
        .get(channel, platformId) !== undefined
    );
  }

  get(id: number): SpooledMessage | undefined {
    const row = this.db.prepare<[number], InboundRow>('SELECT * FROM channel_inbound WHERE id = ?').get(id);
    return row ? toMessage(row) : undefined;
  }

  byPlatformId(channel: ChannelName, platformId: string): SpooledMessage | undefined {
    const row = this.db
      .prepare<[string, string], InboundRow>(
        'SELECT * FROM channel_inbound WHERE channel = ? AND platform_id = ?',
      )
      .get(channel, platformId);
    return row ? toMessage(row) : undefined;
  }

  /** The channel's messages not yet answered nor dead (to resume at start), oldest first. */
  open(channel: ChannelName): SpooledMessage[] {
    return this.db
      .prepare<[string], InboundRow>(
        "SELECT * FROM channel_inbound WHERE channel = ? AND state IN ('accepted', 'running') ORDER BY id",
      )
      .all(channel)
      .map(toMessage);
  }

  /** Start a try: running, one attempt more. */
  claim(id: number): SpooledMessage | undefined {
    this.db
      .prepare(
        "UPDATE channel_inbound SET state = 'running', attempts = attempts + 1, updated_at = ? WHERE id = ? AND state IN ('accepted', 'running')",
      )
      .run(this.clock.now(), id);
    return this.get(id);
  }

  /** The reply's messages sent so far, by part. */
  parts(id: number): SentPart[] {
    return this.db
      .prepare<[number], { part: number; message_id: string; text: string }>(
        'SELECT part, message_id, text FROM channel_reply_parts WHERE inbound_id = ? ORDER BY part',
      )
      .all(id)
      .map((row) => ({ part: row.part, messageId: row.message_id, text: row.text }));
  }

  /** Keep a reply part as the platform has it now (sent or edited). */
  savePart(id: number, part: SentPart): void {
    this.db
      .prepare(
        `INSERT INTO channel_reply_parts (inbound_id, part, message_id, text) VALUES (?, ?, ?, ?)
         ON CONFLICT (inbound_id, part) DO UPDATE SET message_id = excluded.message_id, text = excluded.text`,
      )
      .run(id, part.part, part.messageId, part.text);
  }

  /** Keep the agent's whole answer (its turn ended): later tries only write it. */
  saveAnswer(id: number, markdown: string): void {
    this.db
      .prepare('UPDATE channel_inbound SET answer = ?, updated_at = ? WHERE id = ?')
      .run(markdown, this.clock.now(), id);
  }

  answered(id: number): void {
    this.#setState(id, 'answered', null);
  }

  /** A try failed: back to accepted for the next one. */
  failed(id: number, error: string): void {
    this.#setState(id, 'accepted', error);
  }

  /** Kept failing: a dead letter until the operator retries or drops it. */
  dead(id: number, error: string): void {
    this.#setState(id, 'dead', error);
  }

  /** Dead letters, oldest first (of one channel, or all). */
  deadLetters(channel?: ChannelName): DeadLetter[] {
    const rows = channel
      ? this.db
          .prepare<[string], InboundRow>(
            "SELECT * FROM channel_inbound WHERE state = 'dead' AND channel = ? ORDER BY id",
          )
          .all(channel)
      : this.db
          .prepare<[], InboundRow>("SELECT * FROM channel_inbound WHERE state = 'dead' ORDER BY id")
          .all();
    return rows.map((row) => ({
      id: row.id,
      channel: row.channel,
      platformId: row.platform_id,
      agent: row.agent,
      preview: row.text.slice(0, PREVIEW_CHARS),
      attempts: row.attempts,
      lastError: row.last_error ?? '',
      failedAt: row.updated_at,
    }));
  }

  /**
   * Put a dead letter back in the spool with its attempts reset (the channel, when running, takes it
   * up on its next sweep); false when there is no dead letter with that id.
   */
  retryDead(id: number): boolean {
    return (
      this.db
        .prepare(
          "UPDATE channel_inbound SET state = 'accepted', attempts = 0, updated_at = ? WHERE id = ? AND state = 'dead'",
        )
        .run(this.clock.now(), id).changes > 0
    );
  }

  /**
   * Forget a dead letter's delivery (the row stays, answered, so a replay of it is still
   * recognised); false when there is no dead letter with that id.
   */
  dropDead(id: number): boolean {
    return (
      this.db
        .prepare(
          "UPDATE channel_inbound SET state = 'answered', last_error = 'dropped by the operator', updated_at = ? WHERE id = ? AND state = 'dead'",
        )
        .run(this.clock.now(), id).changes > 0
    );
  }

  /**
   * Forget a channel's answered messages older than `before` (epoch ms), and their reply parts.
   * Platforms replay within hours (Telegram keeps updates a day; Slack retries within minutes), so
   * a week of ids is ample to recognise a replay; dead letters stay until the operator acts.
   */
  prune(channel: ChannelName, before: number): number {
    return this.db
      .prepare("DELETE FROM channel_inbound WHERE channel = ? AND state = 'answered' AND updated_at < ?")
      .run(channel, before).changes;
  }

  /** How many messages of each state a channel has (for status lines). */
  counts(channel: ChannelName): Record<DeliveryState, number> {
    const counts: Record<DeliveryState, number> = { accepted: 0, running: 0, answered: 0, dead: 0 };
    const rows = this.db
      .prepare<[string], { state: DeliveryState; n: number }>(
        'SELECT state, COUNT(*) AS n FROM channel_inbound WHERE channel = ? GROUP BY state',
      )
      .all(channel);
    for (const row of rows) counts[row.state] = row.n;
    return counts;
  }

  #setState(id: number, state: DeliveryState, error: string | null): void {
    transaction(this.db, () => {
      this.db
        .prepare(
          'UPDATE channel_inbound SET state = ?, last_error = COALESCE(?, last_error), updated_at = ? WHERE id = ?',
        )
        .run(state, error, this.clock.now(), id);
    });
  }
}
