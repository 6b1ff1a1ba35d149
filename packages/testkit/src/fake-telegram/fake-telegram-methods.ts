import {
  type BotApiAnswer,
  botApiError,
  botApiResult,
  type FakeTelegramUpdate,
  type FakeTelegramUser,
} from './bot-api-types.js';
import type { BotMessages } from './bot-messages.js';
import type { UpdateQueue } from './update-queue.js';
import type { FakeWebhook } from './webhook-delivery.js';

/** The state the Bot API methods work on. */
export interface FakeTelegramState {
  bot: FakeTelegramUser;
  updates: UpdateQueue;
  messages: BotMessages;
  webhook: FakeWebhook | undefined;
  answeredCallbacks: { callback_query_id: string; text: string | undefined }[];
  /** Rewrites what getUpdates hands over (a chaos test drops, delays, duplicates, replays). */
  updateFilter?: UpdateFilter;
}

/** A getUpdates answer as a faulty Telegram would give it; `history` is every update ever queued. */
export type UpdateFilter = (
  batch: FakeTelegramUpdate[],
  history: readonly FakeTelegramUpdate[],
) => FakeTelegramUpdate[] | Promise<FakeTelegramUpdate[]>;

type Method = (body: Record<string, unknown>, signal: AbortSignal) => Promise<BotApiAnswer> | BotApiAnswer;

const LONG_POLL_CAP_SECONDS = 50;

/** The Bot API methods the fake speaks, by name. */
export function fakeTelegramMethods(state: FakeTelegramState): Record<string, Method> {
  return {
    getMe: () => botApiResult(state.bot),
    getUpdates: async (body, signal) => {
      if (state.webhook) {
        return botApiError(
          409,
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        );
      }
      const offset = body.offset === undefined ? undefined : Number(body.offset);
      const limit = Math.min(100, Math.max(1, Number(body.limit ?? 100)));
      const timeout = Math.min(LONG_POLL_CAP_SECONDS, Math.max(0, Number(body.timeout ?? 0)));
      const batch = await state.updates.take(offset, limit, timeout, signal);
      return botApiResult(state.updateFilter ? await state.updateFilter(batch, state.updates.all) : batch);
    },
    sendMessage: (body) => state.messages.send(body),
    editMessageText: (body) => state.messages.edit(body),
    answerCallbackQuery: (body) => {
      if (typeof body.callback_query_id !== 'string') {
        return botApiError(
          400,
          'Bad Request: query is too old and response timeout expired or query ID is invalid',
        );
      }
      state.answeredCallbacks.push({
        callback_query_id: body.callback_query_id,
        text: typeof body.text === 'string' ? body.text : undefined,
      });
      return botApiResult(true);
    },
    sendChatAction: () => botApiResult(true),
    setWebhook: (body) => {
      if (typeof body.url !== 'string' || body.url === '') {
        state.webhook = undefined;
        return botApiResult(true);
      }
      const secret = typeof body.secret_token === 'string' ? body.secret_token : undefined;
      if (secret !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(secret)) {
        return botApiError(400, 'Bad Request: secret token contains unallowed characters');
      }
      state.webhook = { url: body.url, secret_token: secret };
      return botApiResult(true);
    },
    deleteWebhook: (body) => {
      state.webhook = undefined;
      if (body.drop_pending_updates === true) state.updates.confirm(Number.MAX_SAFE_INTEGER);
      return botApiResult(true);
    },
    getWebhookInfo: () =>
      botApiResult({
        url: state.webhook?.url ?? '',
        has_custom_certificate: false,
        pending_update_count: state.updates.pending.length,
      }),
  };
}
