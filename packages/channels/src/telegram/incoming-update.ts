import { z } from 'zod';

const userSchema = z.object({
  id: z.number().int(),
  is_bot: z.boolean().default(false),
  first_name: z.string().default(''),
  username: z.string().optional(),
});
const chatSchema = z.object({ id: z.number().int(), type: z.string() });
const entitySchema = z.object({
  type: z.string(),
  offset: z.number().int(),
  length: z.number().int(),
  user: z.object({ id: z.number().int() }).optional(),
});
const messageSchema = z.object({
  message_id: z.number().int(),
  chat: chatSchema,
  from: userSchema.optional(),
  text: z.string().optional(),
  entities: z.array(entitySchema).optional(),
  reply_to_message: z.object({ from: z.object({ id: z.number().int() }).optional() }).optional(),
});
const callbackQuerySchema = z.object({
  id: z.string(),
  from: userSchema,
  data: z.string().optional(),
  message: z.object({ message_id: z.number().int(), chat: chatSchema }).optional(),
});

/** The parts of a Bot API `Update` a channel reads; anything else in it is ignored. */
export const telegramUpdateSchema = z.object({
  update_id: z.number().int(),
  message: messageSchema.optional(),
  callback_query: callbackQuerySchema.optional(),
});

/** Someone writing to the bot. */
export interface Sender {
  id: number;
  /** First name and @username, for lists. */
  name: string;
}

/** An update, reduced to what the channel acts on. */
export type IncomingUpdate =
  | {
      kind: 'message';
      updateId: number;
      chatId: number;
      inGroup: boolean;
      messageId: number;
      from: Sender;
      /** The text, without the bot's @mention. */
      text: string;
    }
  | { kind: 'button'; updateId: number; callbackId: string; chatId: number; from: Sender; data: string }
  | { kind: 'ignored'; updateId: number; reason: string };

/** The bot as Telegram knows it (from getMe). */
export interface BotIdentity {
  id: number;
  username: string;
}

const senderOf = (user: z.infer<typeof userSchema>): Sender => ({
  id: user.id,
  name:
    [user.first_name, user.username ? `@${user.username}` : ''].filter(Boolean).join(' ') || String(user.id),
});

/**
 * Parse a raw update and decide whether it is for the bot: private text messages are; in groups,
 * only text that mentions the bot, replies to it or names it in a command (`/help@bot`).
 */
export function toIncomingUpdate(raw: unknown, bot: BotIdentity): IncomingUpdate {
  const parsed = telegramUpdateSchema.safeParse(raw);
  if (!parsed.success) {
    const updateId = typeof raw === 'object' && raw && 'update_id' in raw ? Number(raw.update_id) : -1;
    return { kind: 'ignored', updateId, reason: 'not an update the channel understands' };
  }
  const { update_id: updateId, message, callback_query: query } = parsed.data;
  if (query) {
    if (!query.data || !query.message) return { kind: 'ignored', updateId, reason: 'button without data' };
    return {
      kind: 'button',
      updateId,
      callbackId: query.id,
      chatId: query.message.chat.id,
      from: senderOf(query.from),
      data: query.data,
    };
  }
  if (!message?.from || message.text === undefined)
    return { kind: 'ignored', updateId, reason: 'not a text message' };
  if (message.from.is_bot) return { kind: 'ignored', updateId, reason: 'from a bot' };
  const inGroup = message.chat.type === 'group' || message.chat.type === 'supergroup';
  if (!inGroup && message.chat.type !== 'private')
    return { kind: 'ignored', updateId, reason: 'a channel post' };
  const mentionPattern = `@${bot.username}\\b`;
  const commandTarget = /^\/\w+@(\w+)/.exec(message.text)?.[1];
  if (commandTarget && commandTarget.toLowerCase() !== bot.username.toLowerCase()) {
    return { kind: 'ignored', updateId, reason: 'a command for another bot' };
  }
  const addressed =
    !inGroup ||
    commandTarget !== undefined ||
    message.reply_to_message?.from?.id === bot.id ||
    (message.entities ?? []).some((entity) => entity.type === 'text_mention' && entity.user?.id === bot.id) ||
    new RegExp(mentionPattern, 'i').test(message.text);
  if (!addressed) return { kind: 'ignored', updateId, reason: 'a group message not addressed to the bot' };
  const text = message.text
    .replace(/^(\/\w+)@\w+/, '$1')
    .replace(new RegExp(mentionPattern, 'gi'), '')
    .replace(/\s{2,}/g, ' ')
    .trim();
  return {
    kind: 'message',
    updateId,
    chatId: message.chat.id,
    inGroup,
    messageId: message.message_id,
    from: senderOf(message.from),
    text,
  };
}

/** `/name args` → `{ name, args }` (name lower case); undefined for text that is not a command. */
export function parseCommand(text: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z0-9_]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match?.[1]) return undefined;
  return { name: match[1].toLowerCase(), args: (match[2] ?? '').trim() };
}
