import type { Clock } from '@openlegion/infra/clock';
import { type ChannelChatRequest, type ChannelMesh, isOpenLegionError } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { PlatformReplies } from '../core/delivery-contract.js';
import type { EditPacer } from '../telegram/edit-pacer.js';
import { DiscordReplyStream } from './discord-reply-stream.js';

/** One chat to run and where its reply goes. */
export interface DiscordChat {
  channelId: string;
  replyTo?: string;
  agent: string;
  request: ChannelChatRequest;
  header?: string;
  showUsage: boolean;
}

function whyNotStarted(agent: string, error: unknown): string {
  if (!isOpenLegionError(error)) return `${agent} could not answer (an internal error; see the host log).`;
  switch (error.code) {
    case 'AGENT_UNKNOWN':
      return `There is no agent named ${agent}. /agents lists them.`;
    case 'AGENT_NOT_READY':
      return `${agent} is not ready yet; try again in a moment.`;
    case 'MESH_QUEUE_FULL':
      return `${agent} has too many messages waiting; try again later.`;
    default:
      return `${agent} could not answer: ${error.message}`;
  }
}

/**
 * Runs agent chats for the Discord channel: each streams into its own reply while the gateway goes
 * on delivering events (a long answer never holds up other people). `stop` aborts them all.
 */
export class DiscordRelay {
  readonly #running = new Set<Promise<void>>();
  readonly #lifetime = new AbortController();

  constructor(
    private readonly deps: {
      mesh: () => ChannelMesh;
      replies: PlatformReplies;
      pacer: EditPacer;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /** Start a chat; returns at once (the promise resolves once its reply is written). */
  start(chat: DiscordChat): Promise<void> {
    const running = this.#run(chat).finally(() => this.#running.delete(running));
    this.#running.add(running);
    return running;
  }

  get active(): number {
    return this.#running.size;
  }

  async stop(): Promise<void> {
    this.#lifetime.abort();
    await Promise.allSettled([...this.#running]);
  }

  async #run(chat: DiscordChat): Promise<void> {
    const { replies, pacer, clock, logger } = this.deps;
    const log = logger.child({ agent: chat.agent, channel: chat.channelId, trace: chat.request.trace_id });
    const reply = new DiscordReplyStream({
      replies,
      pacer,
      clock,
      logger: log,
      channelId: chat.channelId,
      ...(chat.replyTo ? { replyTo: chat.replyTo } : {}),
      ...(chat.header ? { header: chat.header } : {}),
      showUsage: chat.showUsage,
    });
    const signal = this.#lifetime.signal;
    try {
      for await (const event of this.deps.mesh().chat(chat.agent, chat.request, signal)) reply.push(event);
    } catch (error) {
      if (signal.aborted) {
        reply.push({ type: 'notice', message: 'stopped: the mesh is shutting down' });
      } else {
        log.warn({ err: error }, 'chat failed');
        const known = isOpenLegionError(error) ? error : undefined;
        reply.push({
          type: 'error',
          code: known?.code ?? 'INTERNAL',
          message: whyNotStarted(chat.agent, error),
          retryable: known?.retryable ?? false,
        });
      }
    }
    await reply.finish();
  }
}
