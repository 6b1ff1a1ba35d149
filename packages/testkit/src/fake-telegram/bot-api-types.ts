/** The slices of Bot API objects the fake produces (https://core.telegram.org/bots/api#available-types). */

export interface FakeTelegramUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  username?: string;
}

export interface FakeTelegramChat {
  id: number;
  type: 'private' | 'group' | 'supergroup';
  title?: string;
  first_name?: string;
  username?: string;
}

export interface FakeTelegramEntity {
  type: 'bot_command' | 'mention';
  offset: number;
  length: number;
}

export interface FakeTelegramIncomingMessage {
  message_id: number;
  date: number;
  chat: FakeTelegramChat;
  from: FakeTelegramUser;
  text: string;
  entities?: FakeTelegramEntity[];
  reply_to_message?: { message_id: number; date: number; chat: FakeTelegramChat; from: FakeTelegramUser };
}

export interface FakeTelegramUpdate {
  update_id: number;
  message?: FakeTelegramIncomingMessage;
  callback_query?: {
    id: string;
    from: FakeTelegramUser;
    data: string;
    chat_instance: string;
    message?: { message_id: number; date: number; chat: FakeTelegramChat };
  };
}

/** A message the bot sent, as the fake keeps it (its current text, and every text it had). */
export interface FakeTelegramBotMessage {
  message_id: number;
  chat_id: number;
  /** The text as last sent, markup included. */
  text: string;
  parse_mode: string | undefined;
  /** What a user sees: markup removed, entities decoded. */
  visible: string;
  reply_to_message_id: number | undefined;
  reply_markup: unknown;
  /** Earlier texts, oldest first (one per successful edit). */
  history: string[];
}

/** One Bot API call the fake received. */
export interface FakeTelegramCall {
  method: string;
  /** Whether the token in the path was the bot's. */
  authorized: boolean;
  body: Record<string, unknown>;
  /** The HTTP status answered; 0 when the fake cut the connection instead. */
  status: number;
  /** When it arrived (`Date.now()` of the fake). */
  at: number;
}

/** A fault to answer a call with, instead of doing it. */
export type FakeTelegramFault =
  | { kind: 'rate-limit'; retryAfterSeconds: number }
  | { kind: 'server-error'; status?: 500 | 502 | 503 | 504 }
  /** A 400 refusal (not retried by a client's retry layer), e.g. `Bad Request: chat not found`. */
  | { kind: 'refuse'; description: string }
  | { kind: 'disconnect' };

/** A Bot API answer: `{ ok: true, result }` or `{ ok: false, error_code, description, parameters? }`. */
export type BotApiAnswer =
  | { status: 200; body: { ok: true; result: unknown } }
  | {
      status: number;
      body: { ok: false; error_code: number; description: string; parameters?: { retry_after: number } };
    };

export function botApiError(status: number, description: string): BotApiAnswer {
  return { status, body: { ok: false, error_code: status, description } };
}

export function botApiResult(result: unknown): BotApiAnswer {
  return { status: 200, body: { ok: true, result } };
}
