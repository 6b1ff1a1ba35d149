/** A Discord user as the fake shows it (a person, or the bot itself). */
export interface FakeDiscordUser {
  id: string;
  username: string;
  global_name?: string;
  bot?: boolean;
}

/** What the bot sent through the REST API: one message with its current content and its edits. */
export interface FakeDiscordBotMessage {
  id: string;
  channel_id: string;
  content: string;
  /** Earlier contents, oldest first (each PATCH pushes the one it replaced). */
  history: string[];
  /** Message components (action rows of buttons) as last sent. */
  components: unknown[];
  /** The message it answers, when the bot quoted one. */
  reply_to?: string;
  /** Whether it was sent as an interaction's follow-up or callback rather than a channel post. */
  via_interaction: boolean;
}

/** One REST call the fake received, as it answered it. */
export interface FakeDiscordCall {
  method: string;
  /** Path after `/api/v10`, e.g. `/channels/42/messages`. */
  route: string;
  authorized: boolean;
  body: unknown;
  status: number;
  at: number;
}

/** An answer the fake gives instead of doing a REST call. */
export type FakeDiscordFault =
  | { kind: 'rate-limit'; retryAfterSeconds: number; global?: boolean }
  | { kind: 'forbidden' }
  | { kind: 'server-error'; status?: number }
  /** Answer as usual, after a pause. */
  | { kind: 'delay'; ms: number };

/** What a gateway connection did, for tests that check the wire. */
export interface FakeGatewayEvent {
  connection: number;
  op: number;
  t?: string;
  s?: number | null;
  direction: 'in' | 'out';
  at: number;
}
