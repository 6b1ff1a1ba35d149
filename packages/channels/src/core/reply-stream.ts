import type { Clock, Timer } from '@openlegion/infra/clock';
import type { ChatEvent } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { PlatformReplies } from './delivery-contract.js';
import type { SentPart } from './delivery-spool.js';
import type { EditPacer } from './edit-pacer.js';
import { ReplyContent } from './reply-content.js';
import { splitReply } from './split-reply.js';

/**
 * The share of a platform's message limit a part's Markdown may fill: rendering mostly shortens
 * text (markup goes) but can lengthen it (a table's padding, Telegram's entities), hence a margin.
 */
export const PART_LIMIT_SHARE = 0.95;

export interface ReplyStreamOptions {
  replies: PlatformReplies;
  pacer: EditPacer;
  clock: Clock;
  logger: Logger;
  /** Where the reply goes (the platform's chat, channel or DM id). */
  conversation: string;
  /** The message this reply answers (quoted by the first part). */
  replyTo?: string;
  /** A first line, e.g. the agent's name in a broadcast (Markdown). */
  header?: string;
  /** Show the tokens used at the end. */
  showUsage?: boolean;
  /** Parts the platform already shows (from the spool, after a retry or restart): edited, never sent again. */
  sent?: readonly SentPart[];
  /** Told after each part is sent or edited, before the next write (the spool keeps it). */
  onWritten?: (part: SentPart) => void;
}

/**
 * One agent reply on any platform, shown while it streams: the first text is sent as a message,
 * later text edits it, at most one round of writes per conversation per {@link EditPacer}
 * interval; text past one message's limit continues in further messages (split at paragraphs,
 * lines, words). `finish` writes the final text in full. A write the platform refuses stops the
 * writing and is kept in {@link error}: the caller retries later with the parts already sent.
 */
export class ReplyStream {
  readonly #content: ReplyContent;
  readonly #sent: SentPart[];
  #override: string | undefined;
  #timer: Timer | undefined;
  #writing: Promise<void> | undefined;
  #dirty = false;
  #final = false;
  #error: unknown;
  #failed = false;
  #finished: (() => void) | undefined;

  constructor(private readonly options: ReplyStreamOptions) {
    this.#content = new ReplyContent(options.header, options.showUsage ?? false);
    this.#sent = [...(options.sent ?? [])].sort((a, b) => a.part - b.part);
  }

  /** The first write the platform refused, if one was. */
  get error(): unknown {
    return this.#error;
  }

  get failed(): boolean {
    return this.#failed;
  }

  /** The reply as Markdown (`final`: as it ends, with the usage line or "no reply"). */
  markdown(final = this.#final): string {
    return this.#override ?? this.#content.markdown(final);
  }

  push(event: ChatEvent): void {
    if (this.#content.apply(event)) this.#changed();
  }

  /** Show this Markdown instead of the events' (a retry writing an answer kept in the spool). */
  show(markdown: string): void {
    this.#override = markdown;
    this.#changed();
  }

  /**
   * Write nothing more (the channel stops mid-reply: a later try takes it up from the spool). A
   * write already on its way is let land, so its message id is kept: cutting it could leave a
   * message the spool does not know, and the next try would send a second.
   */
  abandon(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#failed = true;
    if (!this.#writing) this.#finished?.();
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
    if (this.#failed) {
      if (this.#final) this.#finished?.();
      return;
    }
    const delayMs = this.options.pacer.reserve(this.options.conversation);
    this.#timer = this.options.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#writing = this.#write().finally(() => {
        this.#writing = undefined;
        if (this.#dirty && !this.#failed) this.#changed();
        else if (this.#final || this.#failed) this.#finished?.();
      });
    }, delayMs);
  }

  async #write(): Promise<void> {
    this.#dirty = false;
    const { replies, conversation, logger } = this.options;
    const markdown = this.markdown();
    if (markdown.trim() === '') return;
    const limit = Math.max(100, Math.floor(replies.maxMessageChars * PART_LIMIT_SHARE));
    const parts = splitReply(markdown, limit);
    for (const [index, part] of parts.entries()) {
      if (this.#failed) return;
      const text = replies.render(part) || '…';
      const sent = this.#sent[index];
      if (sent?.text === text) continue;
      try {
        if (sent) {
          await replies.edit(conversation, sent.messageId, text, { markdown: part });
          sent.text = text;
          this.options.onWritten?.(sent);
        } else {
          const replyTo = index === 0 ? this.options.replyTo : undefined;
          const messageId = await replies.send(conversation, text, {
            markdown: part,
            ...(replyTo ? { replyTo } : {}),
          });
          const written = { part: index, messageId, text };
          this.#sent.push(written);
          this.options.onWritten?.(written);
        }
      } catch (error) {
        this.#failed = true;
        this.#error = error;
        logger.warn({ err: error, conversation }, 'reply could not be written');
        return;
      }
    }
  }
}
