import type { Clock, Timer } from '@openlegion/infra/clock';
import { type ChannelMesh, type ChannelName, isOpenLegionError } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { ChannelRegistry } from './channel-registry.js';
import type { InboundMessage, PlatformReplies } from './delivery-contract.js';
import type { DeliverySpool, SpooledMessage } from './delivery-spool.js';
import { EDIT_INTERVAL_MS, EditPacer } from './edit-pacer.js';
import { ReplyStream } from './reply-stream.js';

/** Tries per message before it becomes a dead letter (the first included). */
export const DELIVERY_MAX_ATTEMPTS = 6;
/** The first retry's wait; each next one doubles, up to {@link DELIVERY_MAX_BACKOFF_MS}. */
export const DELIVERY_BASE_BACKOFF_MS = 2_000;
export const DELIVERY_MAX_BACKOFF_MS = 5 * 60_000;
/**
 * How often a running channel looks for accepted messages it is not working on: a dead letter the
 * operator retried from another process (`openlegion channels dead-letters --retry`).
 */
export const DELIVERY_SWEEP_MS = 10_000;
/** Answered messages are kept this long (their ids recognise a replay), then pruned at start. */
export const DELIVERY_KEEP_ANSWERED_MS = 7 * 24 * 60 * 60 * 1000;
/** What a message that steers a running turn shows before anything else. */
export const REDIRECTING_NOTE = 'redirecting…';

/** The wait after failed try `attempt` (1-based): 2 s, 4 s, 8 s, … up to five minutes. */
export function deliveryBackoffMs(attempt: number): number {
  return Math.min(DELIVERY_MAX_BACKOFF_MS, DELIVERY_BASE_BACKOFF_MS * 2 ** Math.max(0, attempt - 1));
}

export interface DeliveryDispatcherOptions {
  channel: ChannelName;
  spool: DeliverySpool;
  mesh: ChannelMesh;
  replies: PlatformReplies;
  clock: Clock;
  logger: Logger;
  /** `channels.<name>.when_busy`; default `steer`. */
  whenBusy?: 'steer' | 'queue';
  /** Shared by every reply of the channel (pass one to pace other writes with them). */
  pacer?: EditPacer;
  maxAttempts?: number;
  backoffMs?: (attempt: number) => number;
  /** Where answered replies are mirrored when the channel's `mirror` is on. */
  registry?: ChannelRegistry;
  /** Told when a message becomes a dead letter (log it, tell the owner). */
  onDead?: (message: SpooledMessage, error: string) => void;
}

/** A short sentence for a chat that could not start, by the mesh's error code. */
export function whyNotStarted(agent: string, error: unknown): string {
  if (!isOpenLegionError(error)) return `${agent} could not answer (an internal error; see the host log).`;
  switch (error.code) {
    case 'AGENT_UNKNOWN':
      return `There is no agent named ${agent}. /agents lists them.`;
    case 'AGENT_NOT_READY':
      return `${agent} is not ready yet; try again in a moment.`;
    case 'MESH_QUEUE_FULL':
      return `${agent} has too many messages waiting; try again later.`;
    case 'BUDGET_EXCEEDED':
      return `${agent} is over its budget: ${error.message}`;
    default:
      return `${agent} could not answer: ${error.message}`;
  }
}

const errorText = (error: unknown): string =>
  (isOpenLegionError(error) ? `${error.code}: ${error.message}` : String(error)).slice(0, 500);

/** The agent conversation a message belongs to. */
export function conversationIdOf(message: InboundMessage): string {
  return message.conversationId ?? `${message.channel}-${message.conversation}-${message.sender}`;
}

/**
 * Runs a channel's spooled messages through the mesh, each streaming into one reply, concurrently
 * (a long answer never holds up other people). A try that the platform refuses is retried with
 * exponential backoff on the clock, editing what it already sent; after `maxAttempts` the message
 * is a dead letter. `start` resumes what a stopped or killed process left accepted or running.
 *
 * @example
 * const dispatcher = new DeliveryDispatcher({ channel: 'discord', spool, mesh, replies, clock, logger });
 * dispatcher.start();
 * if (!dispatcher.submit(message)) logger.debug('a replay: already taken in');
 */
export class DeliveryDispatcher {
  readonly #options: DeliveryDispatcherOptions;
  readonly #pacer: EditPacer;
  readonly #lifetime = new AbortController();
  /** Messages being run or waiting for their retry, by spool id. */
  readonly #inFlight = new Map<number, Promise<void>>();
  readonly #retryTimers = new Map<number, Timer>();
  /** Turns running per agent conversation, for `when_busy`. */
  readonly #turns = new Map<string, number>();
  readonly #replies = new Set<ReplyStream>();
  #sweepTimer: Timer | undefined;
  #started = false;

  constructor(options: DeliveryDispatcherOptions) {
    this.#options = options;
    this.#pacer = options.pacer ?? new EditPacer(options.clock, EDIT_INTERVAL_MS);
  }

  /** Resume the channel's accepted and running messages (left by a stop or a crash), then sweep now and then. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    const { spool, channel, clock } = this.#options;
    spool.prune(channel, clock.now() - DELIVERY_KEEP_ANSWERED_MS);
    this.sweep();
  }

  /** Take a message in; false when it was seen before (nothing runs then). */
  submit(message: InboundMessage): boolean {
    const { spool, channel } = this.#options;
    if (!spool.accept({ ...message, channel })) return false;
    const spooled = spool.byPlatformId(channel, message.platformId);
    if (spooled) this.#schedule(spooled.id, 0);
    return true;
  }

  /** Run every accepted or running message this dispatcher is not working on; how many it took up. */
  sweep(): number {
    const { spool, channel, clock } = this.#options;
    if (this.#lifetime.signal.aborted) return 0;
    let taken = 0;
    for (const message of spool.open(channel)) {
      if (this.#inFlight.has(message.id) || this.#retryTimers.has(message.id)) continue;
      this.#schedule(message.id, 0);
      taken += 1;
    }
    this.#sweepTimer?.cancel();
    this.#sweepTimer = clock.setTimeout(() => this.sweep(), DELIVERY_SWEEP_MS);
    return taken;
  }

  /** How many messages are running or waiting for a retry. */
  get pending(): number {
    return new Set([...this.#inFlight.keys(), ...this.#retryTimers.keys()]).size;
  }

  /** Resolves once no message is running (retries waiting on the clock do not count). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight.values()]);
  }

  /**
   * Stop: cancel waiting retries, end the running chats and write nothing more. What was running
   * stays so in the spool and is answered by the next `start` (editing what was sent).
   */
  async stop(): Promise<void> {
    this.#lifetime.abort();
    this.#sweepTimer?.cancel();
    for (const timer of this.#retryTimers.values()) timer.cancel();
    this.#retryTimers.clear();
    for (const reply of this.#replies) reply.abandon();
    await this.settled();
  }

  #schedule(id: number, delayMs: number): void {
    if (this.#lifetime.signal.aborted) return;
    if (delayMs <= 0) {
      this.#launch(id);
      return;
    }
    this.#retryTimers.set(
      id,
      this.#options.clock.setTimeout(() => {
        this.#retryTimers.delete(id);
        this.#launch(id);
      }, delayMs),
    );
  }

  #launch(id: number): void {
    if (this.#inFlight.has(id) || this.#lifetime.signal.aborted) return;
    const running = this.#run(id)
      .catch((error: unknown) =>
        this.#options.logger.error({ err: error, id }, 'delivery failed unexpectedly'),
      )
      .finally(() => this.#inFlight.delete(id));
    this.#inFlight.set(id, running);
  }

  async #run(id: number): Promise<void> {
    const { spool, replies, clock, logger, channel } = this.#options;
    const message = spool.claim(id);
    if (message?.state !== 'running') return;
    const log = logger.child({
      agent: message.agent,
      platformId: message.platformId,
      attempt: message.attempts,
    });
    const reply = new ReplyStream({
      replies,
      pacer: this.#pacer,
      clock,
      logger: log,
      conversation: message.conversation,
      ...(message.replyTo ? { replyTo: message.replyTo } : {}),
      ...(message.header ? { header: message.header } : {}),
      showUsage: message.showUsage ?? false,
      sent: spool.parts(id),
      onWritten: (part) => spool.savePart(id, part),
    });
    this.#replies.add(reply);
    try {
      if (message.answer !== undefined) {
        reply.show(message.answer);
      } else {
        const completed = await this.#turn(message, reply, log);
        if (!completed) {
          // Stopped mid-turn: let a write on its way land (its id is kept), then leave it running.
          await reply.finish();
          return;
        }
        spool.saveAnswer(id, reply.markdown(true));
      }
      await reply.finish();
      if (this.#lifetime.signal.aborted && reply.failed && reply.error === undefined) return;
      if (reply.failed) return this.#failed(message, reply.error, log);
      spool.answered(id);
      if (this.#options.registry) {
        await this.#options.registry.mirrorReply(channel, message.agent, reply.markdown(true));
      }
    } finally {
      this.#replies.delete(reply);
    }
  }

  /**
   * The agent's turn for `message`: steering the turn running in the same agent conversation
   * (`when_busy: steer`, with a note) or after it. Counted while it runs; false when the channel
   * stopped mid-turn.
   */
  async #turn(message: SpooledMessage, reply: ReplyStream, log: Logger): Promise<boolean> {
    const turn = `${message.agent}\u0000${conversationIdOf(message)}`;
    const busy = (this.#turns.get(turn) ?? 0) > 0;
    this.#turns.set(turn, (this.#turns.get(turn) ?? 0) + 1);
    try {
      const steer = message.mode === 'steer' || (busy && this.#options.whenBusy !== 'queue');
      if (steer && busy) reply.push({ type: 'notice', message: REDIRECTING_NOTE });
      return await this.#chat(message, reply, steer ? 'steer' : 'followup', log);
    } finally {
      const left = (this.#turns.get(turn) ?? 1) - 1;
      if (left > 0) this.#turns.set(turn, left);
      else this.#turns.delete(turn);
    }
  }

  /** Stream the agent's answer into `reply`; false when the channel stopped mid-turn. */
  async #chat(
    message: SpooledMessage,
    reply: ReplyStream,
    mode: 'steer' | 'followup',
    log: Logger,
  ): Promise<boolean> {
    const signal = this.#lifetime.signal;
    const request = {
      message: message.text,
      conversation_id: conversationIdOf(message),
      trace_id: `${message.channel}-${message.platformId}`.slice(0, 100),
      mode,
    };
    try {
      for await (const event of this.#options.mesh.chat(message.agent, request, signal)) {
        reply.push(event);
        if (event.type === 'error') log.warn({ code: event.code }, 'agent answered with an error');
      }
    } catch (error) {
      if (signal.aborted) return false;
      log.warn({ err: error }, 'chat failed');
      // The mesh's own code goes on (BUDGET_EXCEEDED stays itself); a fault with none is INTERNAL.
      const known = isOpenLegionError(error) ? error : undefined;
      reply.push({
        type: 'error',
        code: known?.code ?? 'INTERNAL',
        message: whyNotStarted(message.agent, error),
        retryable: known?.retryable ?? false,
      });
    }
    return !signal.aborted;
  }

  #failed(message: SpooledMessage, error: unknown, log: Logger): void {
    const { spool, maxAttempts = DELIVERY_MAX_ATTEMPTS, backoffMs = deliveryBackoffMs } = this.#options;
    const reason = errorText(error);
    if (message.attempts >= maxAttempts) {
      spool.dead(message.id, reason);
      log.error({ err: error, id: message.id }, 'reply kept failing: moved to the dead letters');
      this.#options.onDead?.(message, reason);
      return;
    }
    spool.failed(message.id, reason);
    const waitMs = backoffMs(message.attempts);
    log.warn({ err: error, waitMs }, 'reply failed; retrying after a pause');
    this.#schedule(message.id, Math.max(1, waitMs));
  }
}
