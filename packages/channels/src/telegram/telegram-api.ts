/** An inline keyboard: rows of buttons, each sending `callback_data` back when pressed. */
export interface InlineKeyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

export interface SendOptions {
  /** `HTML` for text rendered by markdownToTelegramHtml; plain text when absent. */
  parseMode?: 'HTML';
  /** The message this one answers (groups show the quote). */
  replyTo?: number;
  replyMarkup?: InlineKeyboard;
}

/**
 * The Bot API calls a channel makes. The grammY implementation retries 429/5xx/unreachable and
 * throws OpenLegionErrors (`CHAN_TOKEN_REJECTED`, `CHAN_API_ERROR`, `CHAN_UNREACHABLE`); unit tests
 * pass a recording fake.
 */
export interface TelegramApi {
  getMe(signal?: AbortSignal): Promise<{ id: number; username: string }>;
  /** Long polling: waits up to `timeoutSeconds` for updates from `offset` on. */
  getUpdates(offset: number | undefined, timeoutSeconds: number, signal?: AbortSignal): Promise<unknown[]>;
  sendMessage(chatId: number, text: string, options?: SendOptions): Promise<{ messageId: number }>;
  editMessageText(chatId: number, messageId: number, text: string, options?: SendOptions): Promise<void>;
  answerCallbackQuery(callbackQueryId: string, text?: string): Promise<void>;
  setWebhook(url: string, secretToken: string): Promise<void>;
  deleteWebhook(): Promise<void>;
}

/** The update kinds a channel asks for; others (edits, channel posts, reactions) are never sent. */
export const ALLOWED_UPDATES = ['message', 'callback_query'] as const;
