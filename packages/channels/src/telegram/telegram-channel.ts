import { type Clock, systemClock, type Timer } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import { type Channel, type ChannelMesh, isOpenLegionError } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { ChannelRegistry } from '../core/channel-registry.js';
import { ChannelStatusBoard } from '../core/channel-status.js';
import { DeliveryDispatcher } from '../core/delivery-dispatcher.js';
import { DeliverySpool } from '../core/delivery-spool.js';
import { EDIT_INTERVAL_MS, EditPacer } from '../core/edit-pacer.js';
import { escapeMarkdown } from '../core/reply-lines.js';
import { tellOwner } from './approvals.js';
import { createGrammyTelegramApi } from './grammy-telegram-api.js';
import { HandledUpdates, updateIdOf } from './handled-updates.js';
import { type BotIdentity, toIncomingUpdate } from './incoming-update.js';
import type { TelegramApi } from './telegram-api.js';
import { say, type TelegramContext } from './telegram-context.js';
import { type PairingCode, TelegramPairing } from './telegram-pairing.js';
import { telegramReplies } from './telegram-replies.js';
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
/**
 * The last part of {@link STOP_GRACE_MS}: agents' turns are cut, and a write already on its way
 * may still land (its message id is kept, so the next start edits it rather than sending again).
 */
const WRITES_LAND_MS = 1_000;

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
  /** `channels.telegram.when_busy`: a message while the person's turn runs steers it (default) or waits. */
  whenBusy?: 'steer' | 'queue';
  /** `channels.telegram.mirror`: replies and notices also go to the owners of the other channels. */
  mirror?: boolean;
  /** The channels of this process (mirroring goes through it). */
  registry?: ChannelRegistry;
  /** Tries per reply before it becomes a dead letter (the delivery core's default otherwise). */
  maxDeliveryAttempts?: number;
  /** The wait before retry `attempt` of a reply (the delivery core's backoff otherwise). */
  deliveryBackoffMs?: (attempt: number) => number;
  /** How long `stop` lets agents' turns finish before cutting them (default 4 s of {@link STOP_GRACE_MS}). */
  stopGraceMs?: number;
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
  /** The delivery core's spool in mesh.db (dead letters, counts). */
  readonly spool: DeliverySpool;
  /** How the channel stands, in mesh.db for `openlegion status`. */
  readonly status: ChannelStatusBoard;
  readonly #options: TelegramChannelOptions;
  readonly #clock: Clock;
  readonly #handled: HandledUpdates;
  readonly #lifetime = new AbortController();
  readonly #api: TelegramApi;
  #delivery: DeliveryDispatcher | undefined;
  #unregister: () => void = () => {};
  #poller: UpdatePoller | undefined;
  #webhook: WebhookServer | undefined;
  #context: TelegramContext | undefined;
  #stopNotices: () => void = () => {};
  #lastCode: PairingCode | undefined;
  /** The status line's detail while connected: `@bot, polling`. */
  #connectedAs = '';

  constructor(options: TelegramChannelOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.users = new TelegramUsers(options.db);
    this.pairing = new TelegramPairing(options.db, this.users, this.#clock);
    this.#handled = new HandledUpdates(options.db);
    this.spool = new DeliverySpool(options.db, this.#clock);
    this.status = new ChannelStatusBoard(options.db, this.#clock);
    const timeoutSeconds = (options.pollTimeoutSeconds ?? DEFAULT_POLL_TIMEOUT_SECONDS) + 30;
    this.#api = createGrammyTelegramApi({
      token: options.token,
      ...(options.apiRoot ? { apiRoot: options.apiRoot } : {}),
      clock: this.#clock,
      logger: options.logger,
      signal: this.#lifetime.signal,
      timeoutSeconds,
      onHealth: (health, detail) => {
        // Before getMe answered, `start` reports; after `stop`, nothing is running to report on.
        if (!this.#context || this.#lifetime.signal.aborted) return;
        this.status.set(
          'telegram',
          health === 'ok' ? 'connected' : health,
          health === 'ok' ? this.#connectedAs : detail,
        );
      },
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
    this.status.set('telegram', 'starting');
    let bot: BotIdentity;
    try {
      bot = await this.#api.getMe();
    } catch (error) {
      const code = isOpenLegionError(error) ? error.code : undefined;
      this.status.set(
        'telegram',
        code === 'CHAN_TOKEN_REJECTED' ? 'token_rejected' : 'unreachable',
        error instanceof Error ? error.message : String(error),
      );
      throw error;
    }
    const pacer = new EditPacer(this.#clock, this.#options.editIntervalMs ?? EDIT_INTERVAL_MS);
    const registry = this.#options.registry;
    this.#delivery = new DeliveryDispatcher({
      channel: 'telegram',
      spool: this.spool,
      mesh,
      replies: telegramReplies(this.#api),
      pacer,
      clock: this.#clock,
      logger,
      whenBusy: this.#options.whenBusy ?? 'steer',
      ...(this.#options.maxDeliveryAttempts ? { maxAttempts: this.#options.maxDeliveryAttempts } : {}),
      ...(this.#options.deliveryBackoffMs ? { backoffMs: this.#options.deliveryBackoffMs } : {}),
      ...(registry && this.#options.mirror ? { registry } : {}),
      onDead: (message, error) => {
        const owner = this.users.owner();
        if (!owner) return;
        const text = `A reply to "${message.text.slice(0, 80)}" could not be delivered (${error}); \`openlegion channels dead-letters\` lists it.`;
        this.#api
          .sendMessage(owner.userId, text)
          .catch((failure: unknown) =>
            logger.warn({ err: failure }, 'telling the owner of a dead letter failed'),
          );
      },
    });
    const context: TelegramContext = {
      api: this.#api,
      mesh,
      users: this.users,
      pairing: this.pairing,
      delivery: this.#delivery,
      clock: this.#clock,
      logger,
      bot,
      defaultAgent: this.#options.defaultAgent,
      allowGroups: this.#options.allowGroups ?? false,
    };
    this.#context = context;
    // Messages a stop or a crash left unanswered are answered first (editing what was sent).
    this.#delivery.start();
    if (registry) {
      this.#unregister = registry.register({
        name: 'telegram',
        mirror: this.#options.mirror ?? false,
        receivesNotices: true,
        tellOwner: async (markdown) => {
          const owner = this.users.owner();
          if (!owner) return false;
          await say(context, owner.userId, markdown);
          return true;
        },
      });
    }
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
      if (this.#options.mirror && !notice.approval) {
        void registry?.mirrorNotice('telegram', escapeMarkdown(notice.text));
      }
    });
    this.#connectedAs = `@${bot.username}, ${webhook ? 'webhook' : 'polling'}`;
    this.status.set('telegram', 'connected', this.#connectedAs);
    logger.info({ bot: bot.username, mode: webhook ? 'webhook' : 'polling' }, 'telegram channel started');
  }

  /**
   * Stop receiving, give replies in flight a moment to finish, then cut what is left: a cut reply
   * stays in the spool and is answered at the next start (editing what was sent). Idempotent.
   */
  async stop(): Promise<void> {
    this.#stopNotices();
    this.#unregister();
    const receiving = Promise.all([this.#poller?.stop(), this.#webhook?.close()]);
    const delivery = this.#delivery;
    if (delivery) {
      await this.#within(this.#options.stopGraceMs ?? STOP_GRACE_MS - WRITES_LAND_MS, delivery.settled());
      // Ends the agents' turns; a write already on its way lands first (so its id is kept).
      await this.#within(WRITES_LAND_MS, delivery.stop());
    }
    // Cuts retries still waiting (Telegram unreachable): nothing may hold the mesh's shutdown.
    this.#lifetime.abort();
    await Promise.all([delivery?.stop(), receiving]);
    if (this.#context) this.status.set('telegram', 'stopped');
  }

  /** Wait for `work`, at most `ms`. */
  async #within(ms: number, work: Promise<unknown>): Promise<void> {
    let timer: Timer | undefined;
    await Promise.race([
      work,
      new Promise<void>((resolve) => {
        timer = this.#clock.setTimeout(resolve, ms);
      }),
    ]);
    timer?.cancel();
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
