import type { Clock, Timer } from '@openlegion/infra/clock';
import type { ChatEvent } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { PlatformReplies } from '../core/delivery-contract.js';
import type { EditPacer } from '../telegram/edit-pacer.js';
import { ReplyContent } from '../telegram/reply-content.js';
import { splitReply } from '../telegram/split-reply.js';
import { slackRefusalOf } from './slack-api-errors.js';

/**
 * Where a reply's Markdown is split. Rendering to mrkdwn can lengthen it (`&` → `&amp;`): the
 * margin keeps every part under Slack's 40,000 once rendered.
 */
export const SLACK_PART_LIMIT = 38_000;

export interface SlackReplyStreamOptions {
  replies: PlatformReplies;
  pacer: EditPacer;
  clock: Clock;
  logger: Logger;
  /** `C…`, `D…`, or `C…/thread_ts`. */
  conversation: string;
  header?: string;
  showUsage?: boolean;
  partLimit?: number;
  onRefused?: (problem: string) => void;
}

/**
 * One agent reply in Slack, shown while it streams: the first text is posted, later text edits that
 * message (chat.update), one round of writes per conversation per pacer interval; past one message's
 * limit it continues in a further message, split at paragraphs. Once Slack refuses for good
 * (not_in_channel, missing_scope) the reply stops writing: one log line, no retry storm.
 */
export class SlackReplyStream {
  readonly #content: ReplyContent;
  readonly #sent: { ts: string; text: string }[] = [];
  #timer: Timer | undefined;
  #writing: Promise<void> | undefined;
  #dirty = false;
  #final = false;
  #broken = false;
  #finished: (() => void) | undefined;

  constructor(private readonly options: SlackReplyStreamOptions) {
    this.#content = new ReplyContent(options.header, options.showUsage ?? false);
  }

  push(event: ChatEvent): void {
    if (this.#content.apply(event)) this.#changed();
  }

  /** The ts of the messages written so far (the first is the reply). */
  get sent(): readonly string[] {
    return this.#sent.map((part) => part.ts);
  }

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
    const delayMs = this.options.pacer.reserve(this.options.conversation);
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
    const { replies, conversation } = this.options;
    const markdown = this.#content.markdown(this.#final);
    if (markdown.trim() === '') return;
    const parts = splitReply(markdown, this.options.partLimit ?? SLACK_PART_LIMIT);
    for (const [index, part] of parts.entries()) {
      const text = (replies.render(part) || '…').slice(0, replies.maxMessageChars);
      const sent = this.#sent[index];
      if (sent?.text === text) continue;
      try {
        if (sent) {
          await replies.edit(conversation, sent.ts, text);
          sent.text = text;
        } else {
          this.#sent.push({ ts: await replies.send(conversation, text, {}), text });
        }
      } catch (error) {
        this.#broken = true;
        const refusal = slackRefusalOf(error);
        const log = this.options.logger;
        let problem: string;
        if (refusal?.error === 'missing_scope') {
          problem = `the Slack app lacks the bot scope ${refusal.needed ?? '(unnamed)'}: add it and reinstall the app`;
          log.error({ scope: refusal.needed, conversation }, `slack reply refused: ${problem}`);
        } else if (refusal?.error === 'not_in_channel') {
          problem = `the bot is not in channel ${conversation.split('/')[0]}: invite it (/invite @bot)`;
          log.warn({ conversation }, `slack reply refused: ${problem}`);
        } else {
          problem = `a reply could not be written (${refusal?.error ?? (error instanceof Error ? error.message : String(error))})`;
          log.warn({ err: error, conversation }, 'slack reply could not be written');
        }
        this.options.onRefused?.(problem);
        return;
      }
    }
  }
}
