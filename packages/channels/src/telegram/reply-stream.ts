import type { Clock } from '@openlegion/infra/clock';
import type { ChatEvent } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { EditPacer } from '../core/edit-pacer.js';
import { ReplyStream as CoreReplyStream } from '../core/reply-stream.js';
import type { TelegramApi } from './telegram-api.js';
import { telegramReplies } from './telegram-replies.js';

export interface ReplyStreamOptions {
  api: TelegramApi;
  pacer: EditPacer;
  clock: Clock;
  logger: Logger;
  chatId: number;
  /** The user's message this reply answers (quoted in groups). */
  replyTo?: number;
  /** A first line, e.g. the agent's name in a broadcast (Markdown). */
  header?: string;
  /** Show the tokens used at the end (`/debug`). */
  showUsage?: boolean;
}

/**
 * One agent reply in a Telegram chat: the core's {@link CoreReplyStream} writing through
 * {@link telegramReplies}. Kept for callers outside the spool (tests of the stream itself).
 */
export class ReplyStream {
  readonly #stream: CoreReplyStream;

  constructor(options: ReplyStreamOptions) {
    this.#stream = new CoreReplyStream({
      replies: telegramReplies(options.api),
      pacer: options.pacer,
      clock: options.clock,
      logger: options.logger,
      conversation: String(options.chatId),
      ...(options.replyTo ? { replyTo: String(options.replyTo) } : {}),
      ...(options.header ? { header: options.header } : {}),
      showUsage: options.showUsage ?? false,
    });
  }

  push(event: ChatEvent): void {
    this.#stream.push(event);
  }

  finish(): Promise<void> {
    return this.#stream.finish();
  }
}
