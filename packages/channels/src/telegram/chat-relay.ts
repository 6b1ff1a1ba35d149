import type { Clock } from '@openlegion/infra/clock';
import { type ChannelChatRequest, type ChannelMesh, isOpenLegionError } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { EditPacer } from './edit-pacer.js';
import { ReplyStream } from './reply-stream.js';
import type { TelegramApi } from './telegram-api.js';

/** One chat to run: who asked, which agent, what, and how the reply is shown. */
export interface RelayedChat {
  chatId: number;
  replyTo?: number;
  agent: string;
  request: ChannelChatRequest;
  /** A first line of the reply (Markdown), e.g. the agent's name in a broadcast. */
  header?: string;
  showUsage: boolean;
}

/** A short sentence for a chat that could not start, by the mesh's error code. */
function whyNotStarted(agent: string, error: unknown): string {
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

/**
 * Runs agent chats for a channel: each streams into its own reply while the channel goes on
 * reading updates (a long answer never holds up other users). `stop` aborts them all.
 */
export class ChatRelay {
  readonly #running = new Set<Promise<void>>();
  readonly #lifetime = new AbortController();

  constructor(
    private readonly deps: {
      mesh: () => ChannelMesh;
      api: TelegramApi;
      pacer: EditPacer;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /** Start a chat; returns at once (the promise is for tests that want to wait for the reply). */
  start(chat: RelayedChat): Promise<void> {
    const running = this.#run(chat).finally(() => this.#running.delete(running));
    this.#running.add(running);
    return running;
  }

  /** How many chats are streaming. */
  get active(): number {
    return this.#running.size;
  }

  /** Abort every running chat and wait until their replies are closed. */
  async stop(): Promise<void> {
    this.#lifetime.abort();
    await Promise.allSettled([...this.#running]);
  }

  async #run(chat: RelayedChat): Promise<void> {
    const { api, pacer, clock, logger } = this.deps;
    const log = logger.child({ agent: chat.agent, chat: chat.chatId, trace: chat.request.trace_id });
    const reply = new ReplyStream({
      api,
      pacer,
      clock,
      logger: log,
      chatId: chat.chatId,
      ...(chat.replyTo ? { replyTo: chat.replyTo } : {}),
      ...(chat.header ? { header: chat.header } : {}),
      showUsage: chat.showUsage,
    });
    const signal = this.#lifetime.signal;
    try {
      for await (const event of this.deps.mesh().chat(chat.agent, chat.request, signal)) {
        reply.push(event);
        if (event.type === 'error') log.warn({ code: event.code }, 'agent answered with an error');
      }
    } catch (error) {
      if (signal.aborted) {
        reply.push({ type: 'notice', message: 'stopped: the mesh is shutting down' });
      } else {
        log.warn({ err: error }, 'chat failed');
        // The mesh's own code goes on (BUDGET_EXCEEDED stays itself); a fault with none is INTERNAL.
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
