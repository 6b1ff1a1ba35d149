import {
  type BotApiAnswer,
  botApiError,
  botApiResult,
  type FakeTelegramBotMessage,
  type FakeTelegramUser,
} from './bot-api-types.js';
import { parseTelegramHtml } from './telegram-html.js';

/** Telegram's limit on a message's text, after entities parsing. */
export const TELEGRAM_MESSAGE_LIMIT = 4096;

type Visible = { ok: true; visible: string } | { ok: false; answer: BotApiAnswer };

function visibleText(text: unknown, parseMode: unknown): Visible {
  if (typeof text !== 'string' || text.trim() === '') {
    return { ok: false, answer: botApiError(400, 'Bad Request: message text is empty') };
  }
  if (parseMode !== undefined && parseMode !== 'HTML') {
    return {
      ok: false,
      answer: botApiError(400, `Bad Request: unsupported parse_mode ${String(parseMode)}`),
    };
  }
  const parsed = parseMode === 'HTML' ? parseTelegramHtml(text) : { ok: true as const, visible: text };
  if (!parsed.ok) return { ok: false, answer: botApiError(400, parsed.description) };
  if (parsed.visible.length > TELEGRAM_MESSAGE_LIMIT) {
    return { ok: false, answer: botApiError(400, 'Bad Request: message is too long') };
  }
  return { ok: true, visible: parsed.visible };
}

/** The bot's side of the chats: what `sendMessage` and `editMessageText` do to them. */
export class BotMessages {
  readonly all: FakeTelegramBotMessage[] = [];

  constructor(
    private readonly bot: FakeTelegramUser,
    private readonly nextMessageId: () => number,
  ) {}

  send(body: Record<string, unknown>): BotApiAnswer {
    const chatId = Number(body.chat_id);
    if (!Number.isSafeInteger(chatId)) return botApiError(400, 'Bad Request: chat not found');
    const checked = visibleText(body.text, body.parse_mode);
    if (!checked.ok) return checked.answer;
    const message: FakeTelegramBotMessage = {
      message_id: this.nextMessageId(),
      chat_id: chatId,
      text: body.text as string,
      parse_mode: body.parse_mode as string | undefined,
      visible: checked.visible,
      reply_to_message_id: replyTarget(body),
      reply_markup: body.reply_markup,
      history: [],
    };
    this.all.push(message);
    return botApiResult(this.#asApiMessage(message));
  }

  edit(body: Record<string, unknown>): BotApiAnswer {
    const message = this.all.find(
      (candidate) =>
        candidate.chat_id === Number(body.chat_id) && candidate.message_id === Number(body.message_id),
    );
    if (!message) return botApiError(400, 'Bad Request: message to edit not found');
    const checked = visibleText(body.text, body.parse_mode);
    if (!checked.ok) return checked.answer;
    const sameMarkup = JSON.stringify(body.reply_markup) === JSON.stringify(message.reply_markup);
    if (body.text === message.text && body.parse_mode === message.parse_mode && sameMarkup) {
      return botApiError(
        400,
        'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      );
    }
    message.history.push(message.text);
    message.text = body.text as string;
    message.parse_mode = body.parse_mode as string | undefined;
    message.visible = checked.visible;
    message.reply_markup = body.reply_markup;
    return botApiResult(this.#asApiMessage(message));
  }

  #asApiMessage(message: FakeTelegramBotMessage) {
    return {
      message_id: message.message_id,
      date: Math.floor(Date.now() / 1000),
      chat: { id: message.chat_id, type: message.chat_id > 0 ? 'private' : 'group' },
      from: this.bot,
      text: message.visible,
    };
  }
}

function replyTarget(body: Record<string, unknown>): number | undefined {
  const parameters = body.reply_parameters as { message_id?: unknown } | undefined;
  const id = parameters?.message_id ?? body.reply_to_message_id;
  return id === undefined ? undefined : Number(id);
}
