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
