import type { Clock, Timer } from '@openlegion/infra/clock';
import type { ChatEvent } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { PlatformReplies } from '../core/delivery-contract.js';
import type { EditPacer } from '../telegram/edit-pacer.js';
import { ReplyContent } from '../telegram/reply-content.js';
import { splitReply } from '../telegram/split-reply.js';
import { isForbidden } from './discord-replies.js';

/** The host's notice for a message handed to the running turn (`when_busy: steer`). */
const STEERED_NOTICE = 'steered into the running turn';

export interface DiscordReplyStreamOptions {
  replies: PlatformReplies;
  pacer: EditPacer;
  clock: Clock;
  logger: Logger;
  channelId: string;
  /** The person's message this reply answers (quoted in server channels). */
  replyTo?: string;
  header?: string;
  showUsage?: boolean;
}

/**
 * One agent reply in a Discord channel, shown while it streams: the first text is posted at once,
 * later text edits that message, at most one round of writes per channel per pacer interval. Text
 * past 2,000 characters continues in further messages, split at paragraphs, then lines (a code
 * block cut in two is closed and reopened). A channel the bot may not post in (403) ends the reply
 * at the first refusal: logged once, never retried.
 */
export class DiscordReplyStream {
  readonly #content: ReplyContent;
  readonly #sent: { messageId: string; text: string }[] = [];
  #timer: Timer | undefined;
  #writing: Promise<void> | undefined;
  #dirty = false;
  #final = false;
  #broken = false;
  #finished: (() => void) | undefined;

  constructor(private readonly options: DiscordReplyStreamOptions) {
    this.#content = new ReplyContent(options.header, options.showUsage ?? false);
  }

  /** The ids of the messages this reply posted, in order. */
  get messageIds(): string[] {
    return this.#sent.map((sent) => sent.messageId);
  }

  push(event: ChatEvent): void {
    const shown: ChatEvent =
      event.type === 'notice' && event.message === STEERED_NOTICE
        ? { type: 'notice', message: 'redirecting…' }
        : event;
    if (this.#content.apply(shown)) this.#changed();
  }

  /** Write the final text and resolve once it is written (or the reply gave up). */
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
    const delayMs = this.options.pacer.reserve(this.options.channelId);
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
    const { replies, channelId, logger } = this.options;
    const markdown = this.#content.markdown(this.#final);
    if (markdown.trim() === '') return;
    const parts = splitReply(replies.render(markdown), replies.maxMessageChars);
    for (const [index, text] of parts.entries()) {
      const sent = this.#sent[index];
      if (sent?.text === text) continue;
      try {
        if (sent) {
          await replies.edit(channelId, sent.messageId, text);
          sent.text = text;
        } else {
          const replyTo = index === 0 ? this.options.replyTo : undefined;
          const messageId = await replies.send(channelId, text, replyTo ? { replyTo } : {});
          this.#sent.push({ messageId, text });
        }
      } catch (error) {
        // Discord refused for good (no permission, channel gone): stop writing this reply; a
        // transient fault (5xx after discord.js's own retries) is tried again at the next write.
        if (isForbidden(error) || this.#final) {
          this.#broken = true;
          logger.warn(
            { err: error, channel: channelId, forbidden: isForbidden(error) },
            isForbidden(error)
              ? 'discord: the bot may not post in this channel (403); the reply is dropped, check its permissions'
              : 'discord: reply could not be written',
          );
        } else {
          logger.warn({ err: error, channel: channelId }, 'discord: reply write failed; trying again');
          this.#dirty = true;
        }
        return;
      }
    }
  }
}
