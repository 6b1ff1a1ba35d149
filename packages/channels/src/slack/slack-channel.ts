import { type Clock, systemClock, type Timer } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import type { Channel, ChannelMesh } from '@openlegion/protocol';
import { App, SocketModeReceiver, webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { EditPacer } from '../telegram/edit-pacer.js';
import type { PairingCode } from '../telegram/telegram-pairing.js';
import { boltLogger } from './bolt-logger.js';
import { missingScope, startError } from './slack-api-errors.js';
import { APPROVE_ACTION, pressSlackApproval, REJECT_ACTION, tellSlackOwner } from './slack-approvals.js';
import type { SlackContext } from './slack-context.js';
import { handleSlackMessage } from './slack-handler.js';
import { toSlackInbound } from './slack-inbound.js';
import { SlackPairing } from './slack-pairing.js';
import { SlackRelay } from './slack-relay.js';
import { SlackReplies, type SlackWebApi } from './slack-replies.js';
import { SlackUsers } from './slack-users.js';
import { TakenIn } from './taken-in.js';

/** Slack's chat.update is rate-limited per channel (Tier 3, ~50 a minute): one write a second. */
export const SLACK_EDIT_INTERVAL_MS = 1_000;
/** How long `stop` lets replies in flight write their last text. */
export const SLACK_STOP_GRACE_MS = 5_000;
/** The Socket Mode client waits this long before reconnecting (and for a pong). */
export const SLACK_RECONNECT_DELAY_MS = 5_000;

/** The bot scopes the channel cannot work without (mentions only when channels are allowed). */
const NEEDED_SCOPES = ['chat:write', 'im:history'];

export interface SlackChannelOptions {
  /** `xoxb-…`, resolved from the vault by the caller; never logged. */
  botToken: string;
  /** `xapp-…` with connections:write, resolved from the vault by the caller. */
  appToken: string;
  /** mesh.db with SLACK_MIGRATIONS applied (`host.featureDatabase('slack', SLACK_MIGRATIONS)`). */
  db: Database;
  logger: Logger;
  clock?: Clock;
  defaultAgent?: string;
  /** Channel ids (`C…`) the bot answers in when mentioned; DMs only when empty. */
  allowedChannels?: string[];
  /** The Web API base (`https://slack.com/api/` by default; testkit's fake in tests). */
  apiRoot?: string;
  editIntervalMs?: number;
  reconnectDelayMs?: number;
  /** Where a long reply is split (Markdown characters); Slack's limit less a margin by default. */
  partLimit?: number;
}

/** What `openlegion status` and the logs say about the Slack connection. */
export interface SlackChannelStatus {
  state: 'stopped' | 'connecting' | 'connected' | 'reconnecting' | 'failed';
  /** The last problem a person can act on (a refused token, a missing scope, a channel the bot is not in). */
  problem?: string;
}

/**
 * Slack as a chat channel of the mesh, over Socket Mode (no public URL): paired people talk to
 * agents in DMs, and in allowed channels when they mention the bot; replies stream by editing one
 * message; approvals come with buttons. Events Slack retries are taken in once.
 *
 * @example
 * const channel = new SlackChannel({ botToken, appToken, db: host.featureDatabase(SLACK_FEATURE, SLACK_MIGRATIONS), logger });
 * await channel.start(host.channelMesh); // CHAN_TOKEN_REJECTED or CHAN_SCOPE_MISSING naming what to fix
 * channel.pendingPairingCode(); // print it: the first to send `!pair CODE` in a DM owns the bot
 */
export class SlackChannel implements Channel {
  readonly name = 'slack';
  readonly users: SlackUsers;
  readonly pairing: SlackPairing;
  readonly #options: SlackChannelOptions;
  readonly #clock: Clock;
  readonly #taken: TakenIn;
  #status: SlackChannelStatus = { state: 'stopped' };
  #app: App | undefined;
  #relay: SlackRelay | undefined;
  #context: SlackContext | undefined;
  #stopNotices: () => void = () => {};
  #lastCode: PairingCode | undefined;
  #botName: string | undefined;

  constructor(options: SlackChannelOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.users = new SlackUsers(options.db);
    this.pairing = new SlackPairing(options.db, this.users, this.#clock);
    this.#taken = new TakenIn(options.db);
  }

  status(): SlackChannelStatus {
    return { ...this.#status };
  }

  /** The bot's name in the workspace, once started. */
  get botName(): string | undefined {
    return this.#botName;
  }

  /**
   * Check the bot token and its scopes (auth.test), then open the Socket Mode connection. Throws
   * CHAN_TOKEN_REJECTED (naming the token), CHAN_SCOPE_MISSING (naming the scope) or
   * CHAN_UNREACHABLE; nothing keeps running then.
   */
  async start(mesh: ChannelMesh): Promise<void> {
    const { logger } = this.#options;
    this.#status = { state: 'connecting' };
    const slackLogger = boltLogger(logger);
    const clientOptions = {
      ...(this.#options.apiRoot ? { slackApiUrl: this.#options.apiRoot } : {}),
      logger: slackLogger,
      // A few quick tries: a 429's Retry-After is waited out by the client before each.
      retryConfig: { retries: 4, factor: 2, minTimeout: 200, maxTimeout: 5_000 },
    };
    const client = new webApi.WebClient(this.#options.botToken, clientOptions);
    const identity = await this.#checkBotToken(client);
    const receiver = new SocketModeReceiver({
      appToken: this.#options.appToken,
      logger: slackLogger,
      clientPingTimeout: this.#options.reconnectDelayMs ?? SLACK_RECONNECT_DELAY_MS,
      installerOptions: { clientOptions },
    });
    const app = new App({
      token: this.#options.botToken,
      receiver,
      botUserId: identity.userId,
      ...(identity.botId ? { botId: identity.botId } : {}),
      tokenVerificationEnabled: false,
      clientOptions,
      logger: slackLogger,
    });
    app.client.on(webApi.WebClientEvent.RATE_LIMITED, (retryAfterSeconds: number) => {
      logger.warn({ retryAfterSeconds }, 'slack rate limit: waiting as Slack asks before the next call');
    });
    const api = app.client as unknown as SlackWebApi;
    const replies = new SlackReplies(api);
    const pacer = new EditPacer(this.#clock, this.#options.editIntervalMs ?? SLACK_EDIT_INTERVAL_MS);
    this.#relay = new SlackRelay({
      mesh: () => mesh,
      replies,
      pacer,
      clock: this.#clock,
      logger,
      onRefused: (problem) => {
        this.#status = { ...this.#status, problem };
      },
      ...(this.#options.partLimit ? { partLimit: this.#options.partLimit } : {}),
    });
    const context: SlackContext = {
      api,
      mesh,
      users: this.users,
      pairing: this.pairing,
      relay: this.#relay,
      clock: this.#clock,
      logger,
      botUserId: identity.userId,
      defaultAgent: this.#options.defaultAgent,
      allowedChannels: new Set(this.#options.allowedChannels ?? []),
    };
    this.#context = context;
    const takeIn = async ({ event }: { event: unknown }) => this.#takeIn(event as Record<string, unknown>);
    app.event('message', takeIn);
    app.event('app_mention', takeIn);
    app.action(new RegExp(`^(${APPROVE_ACTION}|${REJECT_ACTION})$`), async ({ ack, body, action }) => {
      await ack();
      const value = 'value' in action && typeof action.value === 'string' ? action.value : '';
      const actionId = 'action_id' in action ? action.action_id : '';
      const container = 'container' in body ? (body.container as Record<string, unknown>) : {};
      try {
        const answer = await pressSlackApproval(context, {
          user: body.user.id,
          actionId,
          value,
          ...(typeof container.channel_id === 'string' ? { channel: container.channel_id } : {}),
          ...(typeof container.message_ts === 'string' ? { messageTs: container.message_ts } : {}),
        });
        logger.info({ user: body.user.id, answer }, 'slack approval button pressed');
      } catch (error) {
        logger.error({ err: error }, 'slack approval button failed');
      }
    });
    app.error(async (error) => {
      logger.error({ err: error }, 'slack event handler failed');
    });
    receiver.client.on('connected', () => {
      this.#status = { ...this.#status, state: 'connected' };
    });
    receiver.client.on('reconnecting', () => {
      logger.info('slack socket reconnecting');
      this.#status = { ...this.#status, state: 'reconnecting' };
    });
    try {
      await app.start();
    } catch (error) {
      await app.stop().catch(() => {});
      const failure = startError(error, 'app');
      this.#status = { state: 'failed', problem: failure.message };
      throw failure;
    }
    this.#app = app;
    this.#status = { ...this.#status, state: 'connected' };
    this.#stopNotices = mesh.onNotice((notice) => {
      tellSlackOwner(context, notice).catch((error: unknown) =>
        logger.error({ err: error }, 'telling the owner a notice on slack failed'),
      );
    });
    logger.info({ bot: identity.name, team: identity.team }, 'slack channel started (socket mode)');
  }

  /** Stop receiving, give replies in flight a moment to finish, then cut what is left. Idempotent. */
  async stop(): Promise<void> {
    this.#stopNotices();
    this.#stopNotices = () => {};
    const app = this.#app;
    this.#app = undefined;
    const receiving = app?.stop().catch(() => {});
    const replies = this.#relay?.stop() ?? Promise.resolve();
    let grace: Timer | undefined;
    await Promise.race([
      replies,
      new Promise<void>((resolve) => {
        grace = this.#clock.setTimeout(resolve, SLACK_STOP_GRACE_MS);
      }),
    ]);
    grace?.cancel();
    await receiving;
    this.#status = { state: 'stopped' };
  }

  ownerPaired(): boolean {
    return this.users.owner() !== undefined;
  }

  /** The code to print while nobody owns the bot; undefined once an owner is paired. */
  pendingPairingCode(): PairingCode | undefined {
    if (this.ownerPaired()) return undefined;
    if (this.#lastCode && this.pairing.isPending(this.#lastCode.code)) return this.#lastCode;
    return this.createPairingCode();
  }

  createPairingCode(): PairingCode {
    this.#lastCode = this.pairing.createCode();
    return this.#lastCode;
  }

  async #checkBotToken(
    client: InstanceType<typeof webApi.WebClient>,
  ): Promise<{ userId: string; botId?: string; name?: string; team?: string }> {
    let answer: Awaited<ReturnType<typeof client.auth.test>>;
    try {
      answer = await client.auth.test();
    } catch (error) {
      const failure = startError(error, 'bot');
      this.#status = { state: 'failed', problem: failure.message };
      throw failure;
    }
    const granted = answer.response_metadata?.scopes;
    const needed = [
      ...NEEDED_SCOPES,
      ...((this.#options.allowedChannels ?? []).length > 0 ? ['app_mentions:read'] : []),
    ];
    const lacking = granted ? needed.filter((scope) => !granted.includes(scope)) : [];
    if (lacking.length > 0) {
      const failure = missingScope(lacking.join(', '));
      this.#status = { state: 'failed', problem: failure.message };
      throw failure;
    }
    if (!answer.user_id) throw startError(new Error('auth.test named no bot user'), 'bot');
    this.#botName = answer.user;
    return {
      userId: answer.user_id,
      ...(answer.bot_id ? { botId: answer.bot_id } : {}),
      ...(answer.user ? { name: answer.user } : {}),
      ...(answer.team ? { team: answer.team } : {}),
    };
  }

  /** Take one event in, once: a replay (same channel and ts) is dropped. Never throws. */
  async #takeIn(event: Record<string, unknown>): Promise<void> {
    const context = this.#context;
    if (!context) return;
    try {
      const inbound = toSlackInbound(event, context.botUserId);
      if (inbound.kind === 'ignored') {
        context.logger.debug({ reason: inbound.reason }, 'slack event ignored');
        return;
      }
      if (!this.#taken.claim(`${inbound.channel}:${inbound.ts}`, this.#clock.now())) {
        context.logger.debug(
          { channel: inbound.channel, ts: inbound.ts },
          'slack event replayed: already taken in',
        );
        return;
      }
      await handleSlackMessage(context, inbound);
    } catch (error) {
      context.logger.error({ err: error }, 'slack event failed');
    }
  }
}
