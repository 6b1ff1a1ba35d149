/** What the fake Slack records and what tests inject, in Slack's own field names where it has them. */

/** A message the bot posted (chat.postMessage), with its current text and blocks and every edit. */
export interface FakeSlackBotMessage {
  channel: string;
  ts: string;
  /** Set when the message answers in a thread. */
  thread_ts?: string;
  text: string;
  blocks?: unknown[];
  /** Earlier texts, oldest first (one per chat.update that changed it). */
  edits: string[];
}

/** One Web API call as the fake received it (the token is kept out: it is a secret). */
export interface FakeSlackCall {
  method: string;
  params: Record<string, unknown>;
  /** Epoch ms. */
  at: number;
}

/**
 * A fault for the next calls of a method: a platform error (`ok: false`, e.g. not_in_channel,
 * missing_scope with the scope needed), an HTTP 429 with Retry-After (seconds), or another status.
 */
export type FakeSlackFault =
  | { error: string; needed?: string }
  | { status: 429; retryAfterSeconds: number }
  | { status: number };

/** A Socket Mode envelope the fake sent, and whether the app acknowledged it. */
export interface FakeSlackEnvelope {
  envelope_id: string;
  type: 'events_api' | 'interactive' | 'slash_commands';
  payload: Record<string, unknown>;
  retry_attempt?: number;
  retry_reason?: string;
  acked: boolean;
}

/** A person in the fake workspace. */
export interface FakeSlackUser {
  id: string;
  name?: string;
}

/** Options of `startFakeSlack`. */
export interface FakeSlackOptions {
  /** The bot token (`xoxb-…`) the Web API accepts; others get invalid_auth. */
  botToken?: string;
  /** The app-level token (`xapp-…`) apps.connections.open accepts. */
  appToken?: string;
  /** Channels the bot is a member of (it may post there); other `C…` ids get not_in_channel. */
  memberOf?: string[];
  /** The bot token's scopes, sent in `x-oauth-scopes` as Slack does. Default: what OpenLegion asks for. */
  scopes?: string[];
  /**
   * Deliver an events_api envelope again (retry_attempt + 1, reason `timeout`) when the app has
   * not acknowledged it within this many ms, at most three times, as Slack does (after 3 s there).
   * Off by default.
   */
  retryUnackedAfterMs?: number;
}

/** Whether the fake hands an envelope to the app (after any delay the filter takes) or drops it. */
export type FakeSlackEnvelopeFilter = (
  envelope: FakeSlackEnvelope,
) => Promise<'deliver' | 'drop'> | 'deliver' | 'drop';

/** A running fake Slack (Web API and Socket Mode) on loopback. */
export interface FakeSlack {
  /** For the Web API client's `slackApiUrl`: `http://127.0.0.1:<port>/api/`. */
  url: string;
  botToken: string;
  appToken: string;
  /** The bot's user id (`U…`), as auth.test names it; mentions read `<@ID>`. */
  botUserId: string;
  teamId: string;
  calls: FakeSlackCall[];
  messages: FakeSlackBotMessage[];
  envelopes: FakeSlackEnvelope[];
  /** Socket Mode connections opened so far (a reconnect adds one). */
  connections(): number;
  /** Whether a Socket Mode connection is open now. */
  connected(): boolean;
  /** The DM channel id (`D…`) between the bot and `user`. */
  dmOf(user: FakeSlackUser): string;
  /** A person writes to the bot in a DM (a `message` event with channel_type im); returns the event. */
  sendDm(user: FakeSlackUser, text: string): FakeSlackEnvelope;
  /** A person mentions the bot in a channel (`app_mention`, text starting `<@BOT>`). */
  mention(
    channel: string,
    user: FakeSlackUser,
    text: string,
    options?: { threadTs?: string },
  ): FakeSlackEnvelope;
  /** A person writes in a channel without mentioning the bot (`message`, channel_type channel). */
  sendChannelMessage(channel: string, user: FakeSlackUser, text: string): FakeSlackEnvelope;
  /** A person presses a button (`block_actions`) under one of the bot's messages. */
  pressButton(
    user: FakeSlackUser,
    message: FakeSlackBotMessage,
    actionId: string,
    value: string,
  ): FakeSlackEnvelope;
  /** Slack delivers an envelope again (as after no ack in time): same event, new envelope id, retry_attempt + 1. */
  replay(envelope: FakeSlackEnvelope, reason?: string): FakeSlackEnvelope;
  /** Send a `disconnect` message (Slack does before it rotates a connection); the app reconnects. */
  disconnect(reason: 'refresh_requested' | 'warning' | 'link_disabled'): void;
  /** Cut the Socket Mode connection without a word (a network drop). */
  dropConnection(): void;
  /** Answer the next `times` calls of `method` with `fault` instead of doing them. */
  fail(method: string, fault: FakeSlackFault, times?: number): void;
  /** Decide, for every envelope from now on, whether it is delivered (chaos tests: drops, delays). */
  setEnvelopeFilter(filter: FakeSlackEnvelopeFilter | undefined): void;
  /** Decide, for every Web API call from now on, whether it fails (chaos tests: failed sends). */
  setFaultPicker(picker: ((method: string) => FakeSlackFault | undefined) | undefined): void;
  /** The bot's messages in one channel, oldest first. */
  messagesIn(channel: string): FakeSlackBotMessage[];
  /** Resolve with `probe()`'s first defined value, checked every 10 ms; reject after `timeoutMs`. */
  waitFor<T>(probe: () => T | undefined | false, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}
