import type {
  FakeTelegramBotMessage,
  FakeTelegramChat,
  FakeTelegramUpdate,
  FakeTelegramUser,
} from './bot-api-types.js';
import { buildIncomingMessage, type FakeTelegramSender, privateChat, toUser } from './incoming-messages.js';

export type { FakeTelegramSender } from './incoming-messages.js';

type Push = (update: Omit<FakeTelegramUpdate, 'update_id'>) => FakeTelegramUpdate;

/** What users do to the bot, turned into updates. */
export class UserMessages {
  #callbackId = 0;

  constructor(
    private readonly bot: FakeTelegramUser,
    private readonly nextMessageId: () => number,
    private readonly push: Push,
  ) {}

  sendPrivate(from: FakeTelegramSender, text: string): FakeTelegramUpdate {
    return this.push({ message: buildIncomingMessage(this.nextMessageId(), privateChat(from), from, text) });
  }

  sendGroup(
    group: { id: number; title?: string },
    from: FakeTelegramSender,
    text: string,
    replyTo: number | undefined,
    botMessages: readonly FakeTelegramBotMessage[],
  ): FakeTelegramUpdate {
    const chat: FakeTelegramChat = {
      id: group.id,
      type: 'supergroup',
      title: group.title ?? `Group ${group.id}`,
    };
    let target: { message_id: number; from: FakeTelegramUser } | undefined;
    if (replyTo !== undefined) {
      const mine = botMessages.some((message) => message.message_id === replyTo);
      target = { message_id: replyTo, from: mine ? this.bot : toUser({ id: 1 }) };
    }
    return this.push({ message: buildIncomingMessage(this.nextMessageId(), chat, from, text, target) });
  }

  pressButton(
    from: FakeTelegramSender,
    messageId: number,
    data: string,
    botMessages: readonly FakeTelegramBotMessage[],
  ): FakeTelegramUpdate {
    const message = botMessages.find((candidate) => candidate.message_id === messageId);
    const chat =
      message && message.chat_id !== from.id
        ? { id: message.chat_id, type: 'supergroup' as const }
        : privateChat(from);
    return this.push({
      callback_query: {
        id: `cb-${++this.#callbackId}`,
        from: toUser(from),
        data,
        chat_instance: String(chat.id),
        message: { message_id: messageId, date: Math.floor(Date.now() / 1000), chat },
      },
    });
  }
}
