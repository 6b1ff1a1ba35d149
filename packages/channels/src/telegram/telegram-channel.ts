import { type Clock, systemClock, type Timer } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import type { Channel, ChannelMesh } from '@openlegion/protocol';
import type { Logger } from 'pino';
import { tellOwner } from './approvals.js';
import { ChatRelay } from './chat-relay.js';
import { EDIT_INTERVAL_MS, EditPacer } from './edit-pacer.js';
import { createGrammyTelegramApi } from './grammy-telegram-api.js';
import { HandledUpdates, updateIdOf } from './handled-updates.js';
import { type BotIdentity, toIncomingUpdate } from './incoming-update.js';
import type { TelegramApi } from './telegram-api.js';
import type { TelegramContext } from './telegram-context.js';
import { type PairingCode, TelegramPairing } from './telegram-pairing.js';
import { TelegramUsers } from './telegram-users.js';
import { handleUpdate } from './update-handler.js';
import { UpdatePoller } from './update-poller.js';
import {
  parseWebhookOptions,
  startWebhookServer,
  type TelegramWebhookOptions,
  type WebhookServer,
} from './webhook-server.js';

export const DEFAULT_POLL_TIMEOUT_SECONDS = 30;
/** How long `stop` lets replies in flight write their last text before cutting them off. */
export const STOP_GRACE_MS = 5_000;

export interface TelegramChannelOptions {
  /** The bot token from @BotFather (resolved from the vault by the caller; never logged). */
  token: string;
  /** mesh.db with TELEGRAM_MIGRATIONS applied (`host.featureDatabase('telegram', TELEGRAM_MIGRATIONS)`). */
  db: Database;
  logger: Logger;
  clock?: Clock;
  /** The agent new users talk to; the mesh's first agent when unset. */
  defaultAgent?: string;
  /** Answer in groups (when mentioned or replied to); default false. */
  allowGroups?: boolean;
  /** The Bot API server; Telegram's by default, testkit's fake in tests. */
  apiRoot?: string;
  /** Receive updates by webhook; long polling when absent. */
  webhook?: TelegramWebhookOptions;
  pollTimeoutSeconds?: number;
  editIntervalMs?: number;
}

/**
 * Telegram as a chat channel of the mesh: paired users talk to agents from Telegram, replies stream
 * by editing one message. Long polling by default, a webhook when configured.
 *
 * @example
 * const channel = new TelegramChannel({ token, db: host.featureDatabase('telegram', TELEGRAM_MIGRATIONS), logger });
 * await channel.start(host.channelMesh); // CHAN_TOKEN_REJECTED when Telegram refuses the token
 * const code = channel.pendingPairingCode(); // print it: the first to send `/pair CODE` owns the bot
 */
export class TelegramChannel implements Channel {
  readonly name = 'telegram';
  readonly users: TelegramUsers;
  readonly pairing: TelegramPairing;
  readonly #options: TelegramChannelOptions;
  readonly #clock: Clock;
  readonly #handled: HandledUpdates;
  readonly #lifetime = new AbortController();
  readonly #api: TelegramApi;
  #relay: ChatRelay | undefined;
  #poller: UpdatePoller | undefined;
  #webhook: WebhookServer | undefined;
  #context: TelegramContext | undefined;
  #stopNotices: () => void = () => {};
  #lastCode: PairingCode | undefined;

  constructor(options: TelegramChannelOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.users = new TelegramUsers(options.db);
    this.pairing = new TelegramPairing(options.db, this.users, this.#clock);
    this.#handled = new HandledUpdates(options.db);
    const timeoutSeconds = (options.pollTimeoutSeconds ?? DEFAULT_POLL_TIMEOUT_SECONDS) + 30;
    this.#api = createGrammyTelegramApi({
      token: options.token,
      ...(options.apiRoot ? { apiRoot: options.apiRoot } : {}),
      clock: this.#clock,
      logger: options.logger,
      signal: this.#lifetime.signal,
      timeoutSeconds,
    });
  }

  /** The bot as Telegram named it, once started. */
  get bot(): BotIdentity | undefined {
    return this.#context?.bot;
  }

  /**
   * Check the token (getMe), then receive updates. Throws CHAN_TOKEN_REJECTED when Telegram refuses
   * the token and CHAN_UNREACHABLE when it cannot be reached; nothing keeps running then.
   */
  async start(mesh: ChannelMesh): Promise<void> {
    const { logger } = this.#options;
    const webhook = this.#options.webhook ? parseWebhookOptions(this.#options.webhook) : undefined;
    const bot = await this.#api.getMe();
    const pacer = new EditPacer(this.#clock, this.#options.editIntervalMs ?? EDIT_INTERVAL_MS);
    this.#relay = new ChatRelay({ mesh: () => mesh, api: this.#api, pacer, clock: this.#clock, logger });
    const context: TelegramContext = {
      api: this.#api,
      mesh,
      users: this.users,
      pairing: this.pairing,
      relay: this.#relay,
      clock: this.#clock,
      logger,
      bot,
      defaultAgent: this.#options.defaultAgent,
      allowGroups: this.#options.allowGroups ?? false,
    };
    this.#context = context;
    const dispatch = (raw: unknown) => this.#takeIn(raw);
    if (webhook) {
      this.#webhook = await startWebhookServer(webhook, dispatch, logger);
      await this.#api.setWebhook(webhook.url, webhook.secretToken);
    } else {
      // A webhook left from an earlier setup would make getUpdates fail with 409.
      await this.#api.deleteWebhook();
      const last = this.#handled.last();
      this.#poller = new UpdatePoller({
        api: this.#api,
        clock: this.#clock,
        logger,
        firstOffset: last === undefined ? undefined : last + 1,
        dispatch,
        timeoutSeconds: this.#options.pollTimeoutSeconds ?? DEFAULT_POLL_TIMEOUT_SECONDS,
      });
      this.#poller.start();
    }
    this.#stopNotices = mesh.onNotice((notice) => {
      tellOwner(context, notice).catch((error: unknown) =>
        logger.error({ err: error }, 'telling the owner a notice failed'),
      );
    });
    logger.info({ bot: bot.username, mode: webhook ? 'webhook' : 'polling' }, 'telegram channel started');
  }

  /** Stop receiving, give replies in flight a moment to finish, then cut what is left. Idempotent. */
  async stop(): Promise<void> {
    this.#stopNotices();
    const receiving = Promise.all([this.#poller?.stop(), this.#webhook?.close()]);
    const replies = this.#relay?.stop() ?? Promise.resolve();
    let grace: Timer | undefined;
    await Promise.race([
      replies,
      new Promise<void>((resolve) => {
        grace = this.#clock.setTimeout(resolve, STOP_GRACE_MS);
      }),
    ]);
    grace?.cancel();
    // Cuts retries still waiting (Telegram unreachable): nothing may hold the mesh's shutdown.
    this.#lifetime.abort();
    await Promise.all([replies, receiving]);
  }

  /** Whether someone owns the bot (paired first). */
  ownerPaired(): boolean {
    return this.users.owner() !== undefined;
  }

  /**
   * The code to print while nobody owns the bot: the last one this channel made if it still works,
   * otherwise a new one. Undefined once an owner is paired.
   */
  pendingPairingCode(): PairingCode | undefined {
    if (this.ownerPaired()) return undefined;
    if (this.#lastCode && this.pairing.isPending(this.#lastCode.code)) return this.#lastCode;
    return this.createPairingCode();
  }

  /** A new single-use code (one hour); the oldest pending code goes when there would be four. */
  createPairingCode(): PairingCode {
    this.#lastCode = this.pairing.createCode();
    return this.#lastCode;
  }

  /** Take one update in, once: one seen before (redelivered after a restart) is dropped. Never throws. */
  async #takeIn(raw: unknown): Promise<void> {
    const context = this.#context;
    const updateId = updateIdOf(raw);
    if (!context || updateId === undefined) return;
    try {
      if (!this.#handled.isNew(updateId)) return;
      try {
        await handleUpdate(context, toIncomingUpdate(raw, context.bot));
      } finally {
        // Recorded even when handling failed: an update that fails every time must not block the rest.
        this.#handled.record(updateId);
      }
    } catch (error) {
      context.logger.error({ err: error, update: updateId }, 'telegram update failed');
    }
  }
}
