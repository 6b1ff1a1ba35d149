import { type Clock, systemClock, type Timer } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import type { Channel, ChannelMesh } from '@openlegion/protocol';
import { type Client, Events, GatewayDispatchEvents, Routes } from 'discord.js';
import type { Logger } from 'pino';
import { ChannelPairing, type PairingCode, sharedPairingTables } from '../core/channel-pairing.js';
import type { ChannelRegistry } from '../core/channel-registry.js';
import { type ChannelState, ChannelStatusBoard } from '../core/channel-status.js';
import { type ChannelUser, ChannelUsers } from '../core/channel-users.js';
import { DeliveryDispatcher } from '../core/delivery-dispatcher.js';
import { DeliverySpool } from '../core/delivery-spool.js';
import { EditPacer } from '../core/edit-pacer.js';
import { tellOwner } from './discord-approvals.js';
import type { DiscordContext } from './discord-context.js';
import { connectDiscordClient, createDiscordClient } from './discord-gateway-client.js';
import { handleInbound } from './discord-handler.js';
import { type DiscordInbound, toInboundInteraction, toInboundMessage } from './discord-inbound.js';
import { DiscordReplies } from './discord-replies.js';
import { HandledMessages } from './handled-messages.js';
import { SLASH_COMMANDS } from './slash-commands.js';

/**
 * Discord allows five edits per message per five seconds; one write round per channel per second
 * keeps a streaming reply under it with room for a second reply in the same channel.
 */
export const DISCORD_EDIT_INTERVAL_MS = 1_000;
/** How long `stop` lets replies in flight write their last text before cutting them off. */
export const DISCORD_STOP_GRACE_MS = 5_000;

export interface DiscordChannelOptions {
  /** The bot token (resolved from the vault by the caller; never logged). */
  token: string;
  /** mesh.db with DISCORD_MIGRATIONS applied (the delivery spool adds the shared `channels` track). */
  db: Database;
  logger: Logger;
  clock?: Clock;
  defaultAgent?: string;
  /** Server channels the bot answers in when mentioned; DMs only when empty. */
  allowedChannels?: readonly string[];
  whenBusy?: 'steer' | 'queue';
  /** REST base, e.g. `http://127.0.0.1:PORT/api`; Discord's by default. */
  apiRoot?: string;
  /** Gateway URL; the one Discord names in GET /gateway/bot by default. */
  gatewayUrl?: string;
  editIntervalMs?: number;
  readyTimeoutMs?: number;
  /** How long `stop` waits for replies in flight; default {@link DISCORD_STOP_GRACE_MS}. */
  stopGraceMs?: number;
  /** `channels.discord.mirror`: replies and notices also reach the owner on the other channels. */
  mirror?: boolean;
  /** The channels running in this process (mirroring goes through it). */
  registry?: ChannelRegistry;
  /** The delivery core's tries per message and backoff (tests shorten them). */
  maxAttempts?: number;
  backoffMs?: (attempt: number) => number;
}

/** Where the Discord connection stands (kept on the channel status board too). */
export interface DiscordStatus {
  state: 'stopped' | 'starting' | 'ready' | 'reconnecting' | 'failed';
  /** Why it failed or reconnects, in words the operator can act on. */
  detail?: string;
  /** The error code of a failure (CHAN_TOKEN_REJECTED, CHAN_INTENT_MISSING, CHAN_UNREACHABLE). */
  code?: string;
  /** Epoch ms of the change. */
  at: number;
}

/** The board's word for a status: a refused token or intent needs the operator, the rest passes. */
function boardState(status: DiscordStatus): ChannelState {
  if (status.state === 'ready') return 'connected';
  if (status.state !== 'failed') return status.state;
  if (status.code === 'CHAN_TOKEN_REJECTED') return 'token_rejected';
  if (status.code === 'CHAN_INTENT_MISSING') return 'missing_permission';
  return 'unreachable';
}

/**
 * Discord as a chat channel of the mesh (discord.js over the Gateway and REST): paired users talk
 * to agents in DMs, or by mentioning the bot in the server channels of `allowed_channels`; replies
 * stream by editing one message, split at 2,000 characters; approvals come with buttons. A message
 * the Gateway replays (after a RESUME) is recognised by its id and never answered twice.
 *
 * @example
 * const channel = new DiscordChannel({ token, db: host.featureDatabase(DISCORD_FEATURE, DISCORD_MIGRATIONS), logger });
 * await channel.start(host.channelMesh); // CHAN_TOKEN_REJECTED, CHAN_INTENT_MISSING, CHAN_UNREACHABLE
 */
export class DiscordChannel implements Channel {
  readonly name = 'discord';
  readonly users: ChannelUsers;
  readonly pairing: ChannelPairing<string, ChannelUser>;
  readonly spool: DeliverySpool;
  readonly #options: DiscordChannelOptions;
  readonly #clock: Clock;
  readonly #handled: HandledMessages;
  readonly #dmChannels = new Map<string, string>();
  #client: Client | undefined;
  #context: DiscordContext | undefined;
  #dispatcher: DeliveryDispatcher | undefined;
  #stopNotices: () => void = () => {};
  #unregister: () => void = () => {};
  #writes = new AbortController();
  #lastCode: PairingCode | undefined;
  #status: DiscordStatus = { state: 'stopped', at: 0 };
  /** The same, in mesh.db for `openlegion status` (another process). */
  readonly board: ChannelStatusBoard;

  constructor(options: DiscordChannelOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    // First: the spool brings the shared `channels` track the users and codes live in.
    this.spool = new DeliverySpool(options.db, this.#clock);
    this.users = new ChannelUsers(options.db, 'discord');
    this.pairing = new ChannelPairing(options.db, this.users, this.#clock, sharedPairingTables('discord'));
    this.#handled = new HandledMessages(options.db);
    this.board = new ChannelStatusBoard(options.db, this.#clock);
  }

  get status(): DiscordStatus {
    return this.#status;
  }

  #setStatus(status: Omit<DiscordStatus, 'at'>): void {
    this.#status = { ...status, at: this.#clock.now() };
    try {
      this.board.set('discord', boardState(this.#status), this.#status.detail ?? '');
    } catch (error) {
      // A status is for the operator's eyes; failing to keep it never stops the channel.
      this.#options.logger.warn({ err: error }, 'discord: status not saved');
    }
  }

  /** The bot's user once started: its id and name. */
  get bot(): { id: string; username: string } | undefined {
    const user = this.#client?.user;
    return user ? { id: user.id, username: user.username } : undefined;
  }

  /**
   * Log in, wait for READY, then take events in. Throws CHAN_TOKEN_REJECTED (401 or close 4004),
   * CHAN_INTENT_MISSING (close 4014) or CHAN_UNREACHABLE; nothing keeps running then.
   */
  async start(mesh: ChannelMesh): Promise<void> {
    const { logger } = this.#options;
    this.#setStatus({ state: 'starting' });
    const client = createDiscordClient({
      logger,
      ...(this.#options.apiRoot ? { apiRoot: this.#options.apiRoot } : {}),
      ...(this.#options.gatewayUrl ? { gatewayUrl: this.#options.gatewayUrl } : {}),
    });
    try {
      await connectDiscordClient(client, this.#options.token, this.#options.readyTimeoutMs);
    } catch (error) {
      const failed = error as { code?: string; message?: string };
      this.#setStatus({
        state: 'failed',
        detail: failed.message ?? String(error),
        ...(failed.code ? { code: failed.code } : {}),
      });
      logger.error({ err: error, code: failed.code }, 'discord channel not started');
      throw error;
    }
    this.#client = client;
    this.#handled.prune(this.#clock.now());
    this.#writes = new AbortController();
    const replies = new DiscordReplies(client.rest, {
      clock: this.#clock,
      logger,
      signal: this.#writes.signal,
      onForbidden: (channel) =>
        this.board.set(
          'discord',
          'forbidden',
          `the bot may not post in channel ${channel} (403 Missing Permissions)`,
        ),
      onWritten: () => {
        if (this.#status.state === 'ready') this.board.set('discord', 'connected');
      },
    });
    client.rest.on('rateLimited', (info) =>
      this.board.set(
        'discord',
        'rate_limited',
        `Discord asked to wait ${Math.ceil(info.retryAfter)} ms (${info.route})`,
      ),
    );
    const pacer = new EditPacer(this.#clock, this.#options.editIntervalMs ?? DISCORD_EDIT_INTERVAL_MS);
    const dispatcher = new DeliveryDispatcher({
      channel: 'discord',
      spool: this.spool,
      mesh,
      replies,
      clock: this.#clock,
      logger,
      whenBusy: this.#options.whenBusy ?? 'steer',
      pacer,
      ...(this.#options.registry ? { registry: this.#options.registry } : {}),
      ...(this.#options.maxAttempts ? { maxAttempts: this.#options.maxAttempts } : {}),
      ...(this.#options.backoffMs ? { backoffMs: this.#options.backoffMs } : {}),
      onDead: (message, error) =>
        logger.error(
          { platformId: message.platformId, error },
          'discord: a reply kept failing (see `openlegion channels dead-letters`)',
        ),
    });
    this.#dispatcher = dispatcher;
    const botId = client.user?.id ?? '';
    this.#context = {
      rest: client.rest,
      replies,
      mesh,
      users: this.users,
      pairing: this.pairing,
      submit: (message) =>
        dispatcher.submit({ ...message, channel: 'discord', receivedAt: this.#clock.now() }),
      clock: this.#clock,
      logger,
      botId,
      defaultAgent: this.#options.defaultAgent,
      allowedChannels: new Set(this.#options.allowedChannels ?? []),
      dmChannel: (userId) => this.#dmChannel(userId),
    };
    client.ws.on(GatewayDispatchEvents.MessageCreate, (data: unknown) => {
      void this.#takeIn('message', data, (raw) => toInboundMessage(raw, botId));
    });
    client.ws.on(GatewayDispatchEvents.InteractionCreate, (data: unknown) => {
      void this.#takeIn('interaction', data, toInboundInteraction);
    });
    this.#watchConnection(client);
    void this.#registerSlashCommands(client);
    // Messages a stopped or killed process left accepted or running are answered now.
    dispatcher.start();
    const context = this.#context;
    if (this.#options.registry) {
      this.#unregister = this.#options.registry.register({
        name: 'discord',
        mirror: this.#options.mirror ?? false,
        tellOwner: async (markdown) => {
          const owner = this.users.owner();
          if (!owner) return false;
          await replies.send(owner.ownerConversation ?? (await this.#dmChannel(owner.userId)), markdown, {});
          return true;
        },
      });
    }
    this.#stopNotices = mesh.onNotice((notice) => {
      tellOwner(context, notice).catch((error: unknown) =>
        logger.error({ err: error }, 'telling the owner a notice failed'),
      );
      if (!notice.approval) void this.#options.registry?.mirrorNotice('discord', notice.text);
    });
    this.#setStatus({ state: 'ready' });
    logger.info({ bot: client.user?.username }, 'discord channel started');
  }

  /** Stop taking events in, give replies in flight a moment, then cut what is left. Idempotent. */
  async stop(): Promise<void> {
    this.#stopNotices();
    this.#stopNotices = () => {};
    this.#unregister();
    this.#unregister = () => {};
    const client = this.#client;
    this.#client = undefined;
    client?.ws.removeAllListeners(GatewayDispatchEvents.MessageCreate);
    client?.ws.removeAllListeners(GatewayDispatchEvents.InteractionCreate);
    // Closing the gateway ourselves is no reconnect to log.
    client?.removeAllListeners();
    // Replies in flight get a moment to finish; what is left stays in the spool for the next start.
    const dispatcher = this.#dispatcher;
    let grace: Timer | undefined;
    await Promise.race([
      dispatcher?.settled(),
      new Promise<void>((resolve) => {
        grace = this.#clock.setTimeout(resolve, this.#options.stopGraceMs ?? DISCORD_STOP_GRACE_MS);
      }),
    ]);
    grace?.cancel();
    this.#writes.abort();
    await dispatcher?.stop();
    await client?.destroy();
    this.#setStatus({ state: 'stopped' });
  }

  ownerPaired(): boolean {
    return this.users.owner() !== undefined;
  }

  /** The code to print while nobody owns the bot (the last one while it works); undefined once owned. */
  pendingPairingCode(): PairingCode | undefined {
    if (this.ownerPaired()) return undefined;
    if (this.#lastCode && this.pairing.isPending(this.#lastCode.code)) return this.#lastCode;
    return this.createPairingCode();
  }

  createPairingCode(): PairingCode {
    this.#lastCode = this.pairing.createCode();
    return this.#lastCode;
  }

  /** How many messages are running or waiting for a retry (tests wait for 0). */
  get pendingReplies(): number {
    return this.#dispatcher?.pending ?? 0;
  }

  /** Take one event in, once: an id seen before (a Gateway replay) is dropped. Never throws. */
  async #takeIn(kind: string, raw: unknown, parse: (raw: unknown) => DiscordInbound): Promise<void> {
    const context = this.#context;
    if (!context) return;
    const inbound = parse(raw);
    const id =
      inbound.kind === 'message'
        ? inbound.id
        : inbound.kind === 'ignored'
          ? undefined
          : inbound.interactionId;
    try {
      if (id !== undefined && !this.#handled.claim(id, this.#clock.now())) {
        context.logger.info({ [kind]: id }, 'discord: replayed event dropped (already handled)');
        return;
      }
      await handleInbound(context, inbound);
    } catch (error) {
      context.logger.error({ err: error, [kind]: id }, 'discord event failed');
    }
  }

  #watchConnection(client: Client): void {
    const { logger } = this.#options;
    client.on(Events.ShardReconnecting, () => {
      this.#setStatus({ state: 'reconnecting', detail: 'gateway connection lost; resuming' });
      logger.warn('discord: gateway reconnecting');
    });
    client.on(Events.ShardResume, (_id, replayed) => {
      this.#setStatus({ state: 'ready' });
      logger.info({ replayed }, 'discord: gateway resumed');
    });
    client.on(Events.ShardReady, () => {
      if (this.#status.state === 'reconnecting') this.#setStatus({ state: 'ready' });
    });
    client.on(Events.ShardDisconnect, (event) => {
      this.#setStatus({
        state: 'failed',
        code: event.code === 4014 ? 'CHAN_INTENT_MISSING' : 'CHAN_UNREACHABLE',
        detail: `gateway closed for good (code ${event.code})`,
      });
      logger.error({ code: event.code }, 'discord: gateway closed for good; the channel stops receiving');
    });
    client.on(Events.Error, (error) => logger.warn({ err: error }, 'discord: client error'));
  }

  /** Register the slash commands (a bulk overwrite: the same list on every start). Best effort. */
  async #registerSlashCommands(client: Client): Promise<void> {
    const applicationId = client.application?.id ?? client.user?.id;
    if (!applicationId) return;
    try {
      await client.rest.put(Routes.applicationCommands(applicationId), { body: SLASH_COMMANDS });
    } catch (error) {
      this.#options.logger.warn(
        { err: error },
        'discord: slash commands not registered; text commands still work',
      );
    }
  }

  async #dmChannel(userId: string): Promise<string> {
    const known = this.#dmChannels.get(userId);
    if (known) return known;
    const client = this.#client;
    if (!client) throw new Error('discord channel is not running');
    const channel = (await client.rest.post(Routes.userChannels(), { body: { recipient_id: userId } })) as {
      id: string;
    };
    this.#dmChannels.set(userId, channel.id);
    return channel.id;
  }
}
