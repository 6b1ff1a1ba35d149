import { isOpenLegionError } from '@openlegion/protocol';

/** The description Telegram gave for a refused call, when `error` is one. */
export function telegramRefusal(error: unknown): string | undefined {
  if (!isOpenLegionError(error) || error.code !== 'CHAN_API_ERROR') return undefined;
  const details = error.details as { description?: unknown } | undefined;
  return typeof details?.description === 'string' ? details.description : error.message;
}

/** An edit that changed nothing: harmless, the message already shows that text. */
export const isNotModified = (error: unknown) =>
  /message is not modified/i.test(telegramRefusal(error) ?? '');

/** Telegram could not parse the HTML: the text is sent again as plain text. */
export const isEntityParseError = (error: unknown) =>
  /can't parse entities/i.test(telegramRefusal(error) ?? '');
