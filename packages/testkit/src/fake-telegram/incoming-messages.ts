import type {
  FakeTelegramChat,
  FakeTelegramEntity,
  FakeTelegramIncomingMessage,
  FakeTelegramUser,
} from './bot-api-types.js';

/** A person writing to the bot: an id and, optionally, names. */
export interface FakeTelegramSender {
  id: number;
  first_name?: string;
  username?: string;
}

export function toUser(sender: FakeTelegramSender): FakeTelegramUser {
  return {
    id: sender.id,
    is_bot: false,
    first_name: sender.first_name ?? `User ${sender.id}`,
    ...(sender.username ? { username: sender.username } : {}),
  };
}

export function privateChat(sender: FakeTelegramSender): FakeTelegramChat {
  return {
    id: sender.id,
    type: 'private',
    first_name: sender.first_name ?? `User ${sender.id}`,
    ...(sender.username ? { username: sender.username } : {}),
  };
}

/**
 * The entities Telegram attaches to a text: a `bot_command` for a leading `/command[@bot]` and a
 * `mention` for each `@username` (offsets and lengths in UTF-16 code units, as the API counts).
 */
export function entitiesOf(text: string): FakeTelegramEntity[] {
  const entities: FakeTelegramEntity[] = [];
  const command = /^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?/.exec(text);
  if (command) entities.push({ type: 'bot_command', offset: 0, length: command[0].length });
  for (const mention of text.matchAll(/(^|[^/\w])(@[A-Za-z0-9_]{5,32})/g)) {
    const at = (mention.index ?? 0) + (mention[1]?.length ?? 0);
    if (command && at < command[0].length) continue;
    entities.push({ type: 'mention', offset: at, length: mention[2]?.length ?? 0 });
  }
  return entities;
}

export function buildIncomingMessage(
  messageId: number,
  chat: FakeTelegramChat,
  sender: FakeTelegramSender,
  text: string,
  replyTo?: { message_id: number; from: FakeTelegramUser },
): FakeTelegramIncomingMessage {
  const date = Math.floor(Date.now() / 1000);
  const entities = entitiesOf(text);
  return {
    message_id: messageId,
    date,
    chat,
    from: toUser(sender),
    text,
    ...(entities.length > 0 ? { entities } : {}),
    ...(replyTo
      ? { reply_to_message: { message_id: replyTo.message_id, date, chat, from: replyTo.from } }
      : {}),
  };
}
