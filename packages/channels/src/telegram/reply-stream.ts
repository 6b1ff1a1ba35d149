import type { Clock, Timer } from '@openlegion/infra/clock';
import type { ChatEvent } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { EditPacer } from './edit-pacer.js';
import { markdownToTelegramHtml } from './markdown-to-html.js';
import { ReplyContent } from './reply-content.js';
import { splitReply } from './split-reply.js';
import type { TelegramApi } from './telegram-api.js';
import { isEntityParseError, isNotModified } from './telegram-api-errors.js';

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

interface SentPart {
  messageId: number;
  html: string;
}

/**
 * One agent reply in a Telegram chat, shown while it streams: the first text is sent as a message,
 * later text edits it, at most one round of writes per chat per {@link EditPacer} interval. Text
 * past one message's limit continues in further messages (split at paragraphs). `finish` writes
 * the final text in full.
 */
export class ReplyStream {
  readonly #content: ReplyContent;
  readonly #sent: SentPart[] = [];
  #timer: Timer | undefined;
  #writing: Promise<void> | undefined;
  #dirty = false;
  #final = false;
  #broken = false;
  #finished: (() => void) | undefined;

  constructor(private readonly options: ReplyStreamOptions) {
    this.#content = new ReplyContent(options.header, options.showUsage ?? false);
  }

  push(event: ChatEvent): void {
    if (this.#content.apply(event)) this.#changed();
  }

  /** Write the final text (after the pacing interval, if a write just happened) and resolve. */
  finish(): Promise<void> {
    this.#final = true;
    return new Promise((resolve) => {
      this.#finished = resolve;
      this.#changed();
    });
  }

  #changed(): void {
    this.#dirty = true;
    if (this.#timer || this.#writing) return;
    const delayMs = this.options.pacer.reserve(this.options.chatId);
    this.#timer = this.options.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#writing = this.#write().finally(() => {
        this.#writing = undefined;
        if (this.#dirty) this.#changed();
        else if (this.#final) this.#finished?.();
      });
    }, delayMs);
  }

  async #write(): Promise<void> {
    this.#dirty = false;
    if (this.#broken) return;
    const markdown = this.#content.markdown(this.#final);
    if (markdown.trim() === '') return;
    const parts = splitReply(markdown);
    for (const [index, part] of parts.entries()) {
      const html = markdownToTelegramHtml(part) || '…';
      const sent = this.#sent[index];
      if (sent?.html === html) continue;
      try {
        if (sent) await this.#edit(sent, html, part);
        else this.#sent.push(await this.#send(html, part, index === 0));
      } catch (error) {
        // Telegram refused for good (blocked bot, deleted chat): stop writing this reply.
        this.#broken = true;
        this.options.logger.warn({ err: error, chat: this.options.chatId }, 'reply could not be written');
        return;
      }
    }
  }

  async #send(html: string, markdown: string, first: boolean): Promise<SentPart> {
    const { api, chatId } = this.options;
    const replyTo = first ? this.options.replyTo : undefined;
    try {
      const { messageId } = await api.sendMessage(chatId, html, {
        parseMode: 'HTML',
        ...(replyTo ? { replyTo } : {}),
      });
      return { messageId, html };
    } catch (error) {
      if (!isEntityParseError(error)) throw error;
      this.options.logger.warn({ err: error }, 'telegram refused the HTML; sending plain text');
      const { messageId } = await api.sendMessage(chatId, markdown, replyTo ? { replyTo } : {});
      return { messageId, html };
    }
  }

  async #edit(sent: SentPart, html: string, markdown: string): Promise<void> {
    const { api, chatId } = this.options;
    try {
      await api.editMessageText(chatId, sent.messageId, html, { parseMode: 'HTML' });
    } catch (error) {
      if (isEntityParseError(error)) await api.editMessageText(chatId, sent.messageId, markdown);
      else if (!isNotModified(error)) throw error;
    }
    sent.html = html;
  }
}
