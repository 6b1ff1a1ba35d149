import type { PlatformReplies } from '../core/delivery-contract.js';
import { markdownToTelegramHtml } from './markdown-to-html.js';
import { TELEGRAM_TEXT_LIMIT } from './split-reply.js';
import type { TelegramApi } from './telegram-api.js';
import { isEntityParseError, isNotModified } from './telegram-api-errors.js';

/**
 * How the delivery core writes Telegram messages: Markdown rendered to Telegram HTML; HTML that
 * Telegram cannot parse is sent again as the plain Markdown; an edit that changes nothing is fine.
 * Conversations are chat ids and message ids are Telegram's, as strings.
 */
export function telegramReplies(api: TelegramApi): PlatformReplies {
  return {
    maxMessageChars: TELEGRAM_TEXT_LIMIT,
    render: markdownToTelegramHtml,
    async send(conversation, text, options) {
      const chatId = Number(conversation);
      const replyTo = options.replyTo ? Number(options.replyTo) : undefined;
      try {
        const { messageId } = await api.sendMessage(chatId, text, {
          parseMode: 'HTML',
          ...(replyTo ? { replyTo } : {}),
        });
        return String(messageId);
      } catch (error) {
        if (!isEntityParseError(error) || options.markdown === undefined) throw error;
        const { messageId } = await api.sendMessage(chatId, options.markdown, replyTo ? { replyTo } : {});
        return String(messageId);
      }
    },
    async edit(conversation, messageId, text, options) {
      const chatId = Number(conversation);
      try {
        await api.editMessageText(chatId, Number(messageId), text, { parseMode: 'HTML' });
      } catch (error) {
        if (isEntityParseError(error) && options?.markdown !== undefined) {
          await api.editMessageText(chatId, Number(messageId), options.markdown);
        } else if (!isNotModified(error)) throw error;
      }
    },
  };
}
