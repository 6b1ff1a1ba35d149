import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeOnce } from '../loopback-server.js';
import type {
  BotApiAnswer,
  FakeTelegramBotMessage,
  FakeTelegramCall,
  FakeTelegramFault,
  FakeTelegramUpdate,
  FakeTelegramUser,
} from './bot-api-types.js';
import { BotMessages } from './bot-messages.js';
import { type FakeTelegramState, fakeTelegramMethods, type UpdateFilter } from './fake-telegram-methods.js';
import { FaultPlan } from './fault-plan.js';
import { UpdateQueue } from './update-queue.js';
import { type FakeTelegramSender, UserMessages } from './user-messages.js';
import { deliverToWebhook, type FakeWebhook, type FakeWebhookDelivery } from './webhook-delivery.js';

/** Options of {@link startFakeTelegram}. */
export interface FakeTelegramOptions {
  /** The bot token the fake accepts; others get 401 like Telegram. Default `123456:TEST-token`. */
  token?: string;
  /** The bot's username (without `@`). Default `openlegion_test_bot`. */
  botUsername?: string;
  port?: number;
}

/** A running fake Telegram Bot API on loopback. */
export interface FakeTelegram {
  /** For grammY's `apiRoot`: `http://127.0.0.1:<port>` (calls go to `<url>/bot<token>/<method>`). */
  url: string;
  token: string;
  bot: FakeTelegramUser;
  /** Every call received, in arrival order. */
  calls: FakeTelegramCall[];
  /** Every message the bot sent, with its current text and its edit history. */
  messages: FakeTelegramBotMessage[];
  /** Updates not yet confirmed by a getUpdates offset. */
  pendingUpdates(): readonly FakeTelegramUpdate[];
  /** The webhook set with setWebhook, if any; pushed updates are then POSTed to it. */
  webhook(): FakeWebhook | undefined;
  webhookDeliveries: FakeWebhookDelivery[];
  answeredCallbacks: FakeTelegramState['answeredCallbacks'];
  /** A user writes to the bot in private (`/pair ABCD` and the like included). */
  sendPrivate(from: FakeTelegramSender, text: string): FakeTelegramUpdate;
  /** A user writes in a group; `replyTo` makes it a reply to one of the bot's messages. */
  sendGroup(
    group: { id: number; title?: string },
    from: FakeTelegramSender,
    text: string,
    options?: { replyTo?: number },
  ): FakeTelegramUpdate;
  /** A user presses an inline button under one of the bot's messages. */
  pressButton(from: FakeTelegramSender, messageId: number, data: string): FakeTelegramUpdate;
  /** Pick a fault (or none) for every call from now on, after those planned with `fail`. */
  setFaultPicker(picker: ((method: string) => FakeTelegramFault | undefined) | undefined): void;
  /** Rewrite every getUpdates answer from now on (undefined: answer as Telegram does). */
  setUpdateFilter(filter: UpdateFilter | undefined): void;
  /** Answer the next `times` calls of `method` (or `*`) with a fault instead of doing them. */
  fail(method: string, fault: FakeTelegramFault, times?: number): void;
  /** The messages the bot sent to one chat. */
  messagesTo(chatId: number): FakeTelegramBotMessage[];
  /** Resolve with `probe()`'s first defined value, checked every 10 ms; reject after `timeoutMs`. */
  waitFor<T>(probe: () => T | undefined | false, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

/**
 * Start a fake Telegram Bot API: `/bot<token>/<method>` for getMe, getUpdates (long polling with
 * offset and timeout), sendMessage and editMessageText (HTML checked as strictly as Telegram, 4096
 * characters), answerCallbackQuery, setWebhook, deleteWebhook. Tests push what users write and
 * inject 429s with `retry_after`, 5xx answers and cut connections.
 *
 * @example
 * const telegram = await startFakeTelegram();
 * const api = new Api(telegram.token, { apiRoot: telegram.url });
 * telegram.sendPrivate({ id: 42 }, '/pair ABCD2345');
 */
export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const token = options.token ?? '123456:TEST-token';
  const bot: FakeTelegramUser = {
    id: Number(token.split(':')[0]) || 123456,
    is_bot: true,
    first_name: 'OpenLegion test bot',
    username: options.botUsername ?? 'openlegion_test_bot',
  };
  let messageId = 0;
  const nextMessageId = () => ++messageId;
  const state: FakeTelegramState = {
    bot,
    updates: new UpdateQueue(),
    messages: new BotMessages(bot, nextMessageId),
    webhook: undefined,
    answeredCallbacks: [],
  };
  const methods = fakeTelegramMethods(state);
  const faults = new FaultPlan();
  let faultPicker: ((method: string) => FakeTelegramFault | undefined) | undefined;
  const calls: FakeTelegramCall[] = [];
  const webhookDeliveries: FakeWebhookDelivery[] = [];
  const lifetime = new AbortController();

  const push = (update: Omit<FakeTelegramUpdate, 'update_id'>): FakeTelegramUpdate => {
    const queued = state.updates.push(update);
    const webhook = state.webhook;
    if (webhook) {
      void deliverToWebhook(webhook, queued).then((delivery) => {
        webhookDeliveries.push(delivery);
        if (delivery.status >= 200 && delivery.status < 300) state.updates.confirm(queued.update_id + 1);
      });
    }
    return queued;
  };
  const users = new UserMessages(bot, nextMessageId, push);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake-telegram');
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    const body = await readBody(req, url);
    const call: FakeTelegramCall = {
      method: match?.[2] ?? url.pathname,
      authorized: match?.[1] === token,
      body,
      status: 0,
      at: Date.now(),
    };
    calls.push(call);
    const fault = call.authorized ? (faults.take(call.method) ?? faultPicker?.(call.method)) : undefined;
    if (fault?.kind === 'disconnect') {
      req.socket.destroy();
      return;
    }
    const exchange = new AbortController();
    res.on('close', () => exchange.abort());
    const answer = await answerCall(call, fault, AbortSignal.any([lifetime.signal, exchange.signal]));
    call.status = answer.status;
    if (res.writableEnded || res.destroyed) return;
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  }

  async function answerCall(
    call: FakeTelegramCall,
    fault: Exclude<FakeTelegramFault, { kind: 'disconnect' }> | undefined,
    signal: AbortSignal,
  ): Promise<BotApiAnswer> {
    if (!call.authorized)
      return { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } };
    if (fault) return faultAnswer(fault);
    const method = methods[call.method];
    if (!method) return { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } };
    return method(call.body, signal);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: false, error_code: 500, description: `fake failed: ${String(error)}` }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    bot,
    calls,
    messages: state.messages.all,
    pendingUpdates: () => state.updates.pending,
    webhook: () => state.webhook,
    webhookDeliveries,
    answeredCallbacks: state.answeredCallbacks,
    sendPrivate: (from, text) => users.sendPrivate(from, text),
    sendGroup: (group, from, text, options) =>
      users.sendGroup(group, from, text, options?.replyTo, state.messages.all),
    pressButton: (from, messageId, data) => users.pressButton(from, messageId, data, state.messages.all),
    fail: (method, fault, times = 1) => faults.add(method, fault, times),
    setFaultPicker: (picker) => {
      faultPicker = picker;
    },
    setUpdateFilter: (filter) => {
      state.updateFilter = filter;
    },
    messagesTo: (chatId) => state.messages.all.filter((message) => message.chat_id === chatId),
    waitFor: (probe, timeoutMs = 5_000) => waitFor(probe, timeoutMs),
    close: closeOnce(server, lifetime),
  };
}

function faultAnswer(fault: Exclude<FakeTelegramFault, { kind: 'disconnect' }>): BotApiAnswer {
  if (fault.kind === 'rate-limit') {
    return {
      status: 429,
      body: {
        ok: false,
        error_code: 429,
        description: `Too Many Requests: retry after ${fault.retryAfterSeconds}`,
        parameters: { retry_after: fault.retryAfterSeconds },
      },
    };
  }
  if (fault.kind === 'refuse') {
    return { status: 400, body: { ok: false, error_code: 400, description: fault.description } };
  }
  const status = fault.status ?? 502;
  return { status, body: { ok: false, error_code: status, description: 'Bad Gateway' } };
}

async function readBody(req: IncomingMessage, url: URL): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  if (text.trim() === '') return Object.fromEntries(url.searchParams);
  const parsed: unknown = JSON.parse(text);
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
}

async function waitFor<T>(probe: () => T | undefined | false, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`fake Telegram: condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
