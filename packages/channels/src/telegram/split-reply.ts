import { splitReply as splitAt } from '../core/split-reply.js';

/** Telegram refuses a message whose text, after entities parsing, is longer than this. */
export const TELEGRAM_TEXT_LIMIT = 4096;
/**
 * Where a reply's Markdown is split. Rendering mostly shortens text (markup goes), but a table's
 * cells gain spaces: the margin keeps every part under {@link TELEGRAM_TEXT_LIMIT} once rendered.
 */
export const REPLY_PART_LIMIT = 3900;

/** {@link splitAt} at Telegram's part limit. */
export function splitReply(markdown: string, limit = REPLY_PART_LIMIT): string[] {
  return splitAt(markdown, limit);
}
