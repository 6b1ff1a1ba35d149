import { type Clock, systemClock, type Timer } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import type { Channel, ChannelMesh } from '@openlegion/protocol';
import { isOpenLegionError } from '@openlegion/protocol';
import type { App, webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { ChannelPairing, type PairingCode, sharedPairingTables } from '../core/channel-pairing.js';
import type { ChannelRegistry } from '../core/channel-registry.js';
import { type ChannelState, ChannelStatusBoard } from '../core/channel-status.js';
import { type ChannelUser, ChannelUsers } from '../core/channel-users.js';
import { DeliveryDispatcher } from '../core/delivery-dispatcher.js';
import { DeliverySpool } from '../core/delivery-spool.js';
import { EditPacer } from '../core/edit-pacer.js';
import { escapeMarkdown } from '../core/reply-lines.js';
import { boltLogger } from './bolt-logger.js';
import { missingScope, startError } from './slack-api-errors.js';
import { APPROVE_ACTION, pressSlackApproval, REJECT_ACTION, tellSlackOwner } from './slack-approvals.js';
import type { SlackContext } from './slack-context.js';
import { handleSlackMessage } from './slack-handler.js';
import { toSlackInbound } from './slack-inbound.js';
import { SlackReplies, type SlackWebApi } from './slack-replies.js';
import { TakenIn } from './taken-in.js';

/** Slack's chat.update is rate-limited per channel (Tier 3, ~50 a minute): one write a second. */
export const SLACK_EDIT_INTERVAL_MS = 1_000;
/** How long `stop` lets replies in flight write their last text. */
export const SLACK_STOP_GRACE_MS = 5_000;
/**
 * How long `stop` waits, after cutting the agents' turns, for a write already on its way: it lands
 * and its ts is kept, so the next start edits that message rather than sending another.
 */
const WRITES_LAND_MS = 1_000;
/** The Socket Mode client waits this long before reconnecting (and for a pong). */
export const SLACK_RECONNECT_DELAY_MS = 5_000;

/** The bot scopes the channel cannot work without (mentions only when channels are allowed). */
const NEEDED_SCOPES = ['chat:write', 'im:history'];

export interface SlackChannelOptions {
  /** `xoxb-…`, resolved from the vault by the caller; never logged. */
  botToken: string;
  /** `xapp-…` with connections:write, resolved from the vault by the caller. */
  appToken: string;
  /** mesh.db with SLACK_MIGRATIONS applied (`host.featureDatabase('slack', SLACK_MIGRATIONS)`); the core adds its own track. */
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
  /** `channels.slack.when_busy`: a message while the agent is busy steers its turn (default) or waits. */
  whenBusy?: 'steer' | 'queue';
  /** `channels.slack.mirror`: replies and notices also reach the owner on the other channels. */
  mirror?: boolean;
  /** The channels running in this process (mirroring goes through it). */
  registry?: ChannelRegistry;
  /** Tries per message before it is a dead letter (the core's default when unset). */
  maxDeliveryAttempts?: number;
  /** The delivery core's wait after failed try n (tests shorten it). */
  deliveryBackoffMs?: (attempt: number) => number;
  /** How long `stop` lets replies in flight finish before cutting them (they resume at the next start). */
  stopGraceMs?: number;
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
  readonly users: ChannelUsers;
  readonly pairing: ChannelPairing<string, ChannelUser>;
  readonly spool: DeliverySpool;
  readonly #options: SlackChannelOptions;
  readonly #clock: Clock;
  readonly #taken: TakenIn;
  #status: SlackChannelStatus = { state: 'stopped' };
  readonly #board: ChannelStatusBoard;
  #app: App | undefined;
  #dispatcher: DeliveryDispatcher | undefined;
  #unregister: () => void = () => {};
  #context: SlackContext | undefined;
  #stopNotices: () => void = () => {};
  #lastCode: PairingCode | undefined;
  #botName: string | undefined;

  constructor(options: SlackChannelOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.users = new ChannelUsers(options.db, 'slack');
    this.pairing = new ChannelPairing(options.db, this.users, this.#clock, sharedPairingTables('slack'));
    this.spool = new DeliverySpool(options.db, this.#clock);
    this.#taken = new TakenIn(options.db);
    this.#board = new ChannelStatusBoard(options.db, this.#clock);
  }

  /** Keep the state here (for {@link status}) and on the board `openlegion status` reads. */
  #setStatus(status: SlackChannelStatus, failure?: unknown): void {
    this.#status = status;
    this.#board.set('slack', boardState(status, failure), status.problem ?? '');
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
    this.#setStatus({ state: 'connecting' });
    // Loaded here: Bolt and its HTTP stack cost ~0.7 s of start-up to every user of this package.
    const { App, SocketModeReceiver, webApi } = await importBolt();
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
    const replies = new SlackReplies(api, (problem) => {
      logger.warn(`slack reply refused: ${problem}`);
      this.#setStatus({ ...this.#status, problem });
    });
    const dispatcher = new DeliveryDispatcher({
      channel: 'slack',
      spool: this.spool,
      mesh,
      replies,
      clock: this.#clock,
      logger,
      whenBusy: this.#options.whenBusy ?? 'steer',
      pacer: new EditPacer(this.#clock, this.#options.editIntervalMs ?? SLACK_EDIT_INTERVAL_MS),
      ...(this.#options.registry ? { registry: this.#options.registry } : {}),
      ...(this.#options.maxDeliveryAttempts ? { maxAttempts: this.#options.maxDeliveryAttempts } : {}),
      ...(this.#options.deliveryBackoffMs ? { backoffMs: this.#options.deliveryBackoffMs } : {}),
      onDead: (message, error) => {
        const dm = this.users.owner()?.ownerConversation;
        if (!dm) return;
        const text = `A message to ${escapeMarkdown(message.agent)} could not be answered on Slack \\(${escapeMarkdown(error.slice(0, 200))}\\); \`openlegion channels dead-letters\` can retry it\\.`;
        replies.send(dm, replies.render(text), {}).catch(() => {});
      },
    });
    this.#dispatcher = dispatcher;
    const context: SlackContext = {
      api,
      replies,
      mesh,
      users: this.users,
      pairing: this.pairing,
      clock: this.#clock,
      logger,
      botUserId: identity.userId,
      defaultAgent: this.#options.defaultAgent,
      allowedChannels: new Set(this.#options.allowedChannels ?? []),
      submit: (message) => dispatcher.submit({ ...message, channel: 'slack', receivedAt: this.#clock.now() }),
      claim: (key) => this.#taken.claim(key, this.#clock.now()),
    };
    this.#context = context;
    // Events are taken from the Socket Mode client, not from Bolt's listeners: the client emits an
    // event's type before Bolt acknowledges the envelope, and #takeIn spools a chat (or claims a
    // command) synchronously, so a message Slack sees acknowledged is already in mesh.db.
    const takeIn = ({ event }: { event: unknown }) => {
      void this.#takeIn(event as Record<string, unknown>);
    };
    receiver.client.on('message', takeIn);
    receiver.client.on('app_mention', takeIn);
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
      this.#setStatus({ ...this.#status, state: 'connected' });
    });
    receiver.client.on('reconnecting', () => {
      logger.info('slack socket reconnecting');
      this.#setStatus({ ...this.#status, state: 'reconnecting' });
    });
    try {
      await app.start();
    } catch (error) {
      await app.stop().catch(() => {});
      const failure = startError(error, 'app');
      this.#setStatus({ state: 'failed', problem: failure.message }, failure);
      throw failure;
    }
    this.#app = app;
    this.#setStatus({ ...this.#status, state: 'connected' });
    // What a stop or a crash left accepted or running is answered now, editing what was sent.
    dispatcher.start();
    this.#unregister =
      this.#options.registry?.register({
        name: 'slack',
        mirror: this.#options.mirror ?? false,
        tellOwner: async (markdown) => {
          const dm = this.users.owner()?.ownerConversation;
          if (!dm) return false;
          await replies.send(dm, replies.render(markdown), {});
          return true;
        },
      }) ?? (() => {});
    this.#stopNotices = mesh.onNotice((notice) => {
      tellSlackOwner(context, notice).catch((error: unknown) =>
        logger.error({ err: error }, 'telling the owner a notice on slack failed'),
      );
      if (!notice.approval) void this.#options.registry?.mirrorNotice('slack', escapeMarkdown(notice.text));
    });
    logger.info({ bot: identity.name, team: identity.team }, 'slack channel started (socket mode)');
  }

  /** Stop receiving, give replies in flight a moment to finish, then cut what is left. Idempotent. */
  async stop(): Promise<void> {
    this.#stopNotices();
    this.#stopNotices = () => {};
    this.#unregister();
    const app = this.#app;
    this.#app = undefined;
    const receiving = app?.stop().catch(() => {});
    const dispatcher = this.#dispatcher;
    if (dispatcher) {
      // Replies in flight get a moment to finish; what is left stays in the spool for the next start.
      await this.#within(
        this.#options.stopGraceMs ?? SLACK_STOP_GRACE_MS - WRITES_LAND_MS,
        dispatcher.settled(),
      );
      await this.#within(WRITES_LAND_MS, dispatcher.stop());
    }
    await receiving;
    this.#setStatus({ state: 'stopped' });
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
      this.#setStatus({ state: 'failed', problem: failure.message }, failure);
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
      this.#setStatus({ state: 'failed', problem: failure.message }, failure);
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

  /**
   * Take one event in; a replay (same channel and ts) is dropped by the spool or the taken-in list.
   * Spools or claims before its first await (see start). Never throws.
   */
  async #takeIn(event: Record<string, unknown>): Promise<void> {
    const context = this.#context;
    if (!context) return;
    try {
      const inbound = toSlackInbound(event, context.botUserId);
      if (inbound.kind === 'ignored') {
        context.logger.debug({ reason: inbound.reason }, 'slack event ignored');
        return;
      }
      await handleSlackMessage(context, inbound);
    } catch (error) {
      context.logger.error({ err: error }, 'slack event failed');
    }
  }
}

/** The shared board's word for Slack's state; a failure's code says which kind of failure. */
function boardState(status: SlackChannelStatus, failure: unknown): ChannelState {
  if (status.state === 'connecting') return 'starting';
  if (status.state !== 'failed') return status.state;
  const code = isOpenLegionError(failure) ? failure.code : undefined;
  if (code === 'CHAN_TOKEN_REJECTED') return 'token_rejected';
  if (code === 'CHAN_SCOPE_MISSING') return 'missing_permission';
  return 'unreachable';
}

type Bolt = Omit<typeof import('@slack/bolt'), 'default'>;

/**
 * Bolt is CommonJS, and loaders hand its exports differently: Node both by name and as `default`,
 * the CLI's bundle only as `default` (esbuild's chunk for a dynamically imported CommonJS module
 * has no named exports), Vite's test loader by name with `default` as Bolt's own default (App).
 */
async function importBolt(): Promise<Bolt> {
  const loaded: unknown = await import('@slack/bolt');
  const named = loaded as Bolt;
  return named.webApi ? named : (loaded as { default: Bolt }).default;
}
