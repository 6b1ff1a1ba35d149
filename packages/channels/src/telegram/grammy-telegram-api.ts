import type { Clock } from '@openlegion/infra/clock';
import { OpenLegionError } from '@openlegion/protocol';
import { Api, GrammyError, HttpError } from 'grammy';
import type { Logger } from 'pino';
import { type RetryPolicy, retryTransformer } from './retry-transformer.js';
import { ALLOWED_UPDATES, type SendOptions, type TelegramApi } from './telegram-api.js';

export interface GrammyTelegramApiOptions {
  token: string;
  /** The Bot API server; default Telegram's (tests point it at testkit's fake). */
  apiRoot?: string;
  clock: Clock;
  logger: Logger;
  /** Aborts waits between retries when the channel stops. */
  signal: AbortSignal;
  /** How long one HTTP call may take; a long poll's timeout plus a margin. */
  timeoutSeconds: number;
  /** Told how calls go (see {@link RetryPolicy.onHealth}). */
  onHealth?: RetryPolicy['onHealth'];
}

/**
 * grammY types signals with the `abort-controller` shim it uses on old Nodes; at run time it accepts
 * any object with `addEventListener` (checked in its client), so Node's own signal is passed on.
 */
type GrammySignal = Parameters<Api['getMe']>[0];
const forGrammy = (signal: AbortSignal) => signal as unknown as GrammySignal;

/** Tries of getMe at start before the channel gives up (with backoff: about 3 s). */
const START_ATTEMPTS = 3;

/** {@link TelegramApi} over grammY's `Api`, with retries through the channel's clock. */
export function createGrammyTelegramApi(options: GrammyTelegramApiOptions): TelegramApi {
  const api = new Api(options.token, {
    ...(options.apiRoot ? { apiRoot: options.apiRoot } : {}),
    timeoutSeconds: options.timeoutSeconds,
  });
  api.config.use(
    retryTransformer({
      clock: options.clock,
      logger: options.logger,
      maxAttempts: (method) => (method === 'getMe' ? START_ATTEMPTS : Number.POSITIVE_INFINITY),
      ...(options.onHealth ? { onHealth: options.onHealth } : {}),
    }),
  );
  const signal = forGrammy(options.signal);
  const other = (send: SendOptions = {}) => ({
    ...(send.parseMode ? { parse_mode: send.parseMode } : {}),
    ...(send.replyTo
      ? { reply_parameters: { message_id: send.replyTo, allow_sending_without_reply: true } }
      : {}),
    ...(send.replyMarkup ? { reply_markup: send.replyMarkup } : {}),
  });
  return {
    getMe: (callSignal) =>
      translate('getMe', async () => {
        const me = await api.getMe(callSignal ? forGrammy(callSignal) : signal);
        return { id: me.id, username: me.username };
      }),
    getUpdates: (offset, timeoutSeconds, callSignal) =>
      translate('getUpdates', () =>
        api.getUpdates(
          {
            ...(offset !== undefined ? { offset } : {}),
            timeout: timeoutSeconds,
            allowed_updates: [...ALLOWED_UPDATES],
          },
          callSignal ? forGrammy(callSignal) : signal,
        ),
      ),
    sendMessage: (chatId, text, send) =>
      translate('sendMessage', async () => {
        const message = await api.sendMessage(chatId, text, other(send), signal);
        return { messageId: message.message_id };
      }),
    editMessageText: (chatId, messageId, text, send) =>
      translate('editMessageText', async () => {
        await api.editMessageText(chatId, messageId, text, other(send), signal);
      }),
    answerCallbackQuery: (id, text) =>
      translate('answerCallbackQuery', async () => {
        await api.answerCallbackQuery(id, text ? { text } : {}, signal);
      }),
    setWebhook: (url, secretToken) =>
      translate('setWebhook', async () => {
        await api.setWebhook(
          url,
          { secret_token: secretToken, allowed_updates: [...ALLOWED_UPDATES] },
          signal,
        );
      }),
    deleteWebhook: () =>
      translate('deleteWebhook', async () => {
        await api.deleteWebhook({}, signal);
      }),
  };
}

/** grammY's errors as OpenLegionErrors; the description Telegram gave stays in `details`. */
async function translate<T>(method: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof GrammyError) {
      const details = { method, error_code: error.error_code, description: error.description };
      if (error.error_code === 401) {
        throw new OpenLegionError(
          'CHAN_TOKEN_REJECTED',
          'Telegram rejected the bot token (401 Unauthorized): check channels.telegram.token and the secret it names',
          { cause: error, details },
        );
      }
      if (error.error_code === 429 || error.error_code >= 500) {
        throw new OpenLegionError(
          'CHAN_UNREACHABLE',
          `Telegram kept failing ${method}: ${error.description}`,
          {
            cause: error,
            details,
          },
        );
      }
      throw new OpenLegionError('CHAN_API_ERROR', `Telegram refused ${method}: ${error.description}`, {
        cause: error,
        details,
      });
    }
    if (error instanceof HttpError) {
      throw new OpenLegionError(
        'CHAN_UNREACHABLE',
        `Telegram could not be reached (${method}): ${error.message}`,
        {
          cause: error,
          details: { method },
        },
      );
    }
    throw error;
  }
}
