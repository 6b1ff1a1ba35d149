import { createHash } from 'node:crypto';
import type { Clock } from '@openlegion/infra/clock';
import { OpenLegionError } from '@openlegion/protocol';
import { Routes } from 'discord.js';
import type { Logger } from 'pino';
import type { PlatformReplies } from '../core/delivery-contract.js';

/**
 * How long a channel that answered 403 is not written to again: the core's retries of a reply
 * there fail at once instead of calling Discord (no retry storm on a channel the bot may not use).
 */
export const FORBIDDEN_CHANNEL_MS = 10 * 60_000;

/** Discord refuses a message whose content is longer than this. */
export const DISCORD_MESSAGE_CHARS = 2_000;

/** What the adapter needs of discord.js's REST client (`client.rest`). */
export interface DiscordRest {
  post(route: `/${string}`, options: { body: unknown; signal?: AbortSignal }): Promise<unknown>;
  patch(route: `/${string}`, options: { body: unknown; signal?: AbortSignal }): Promise<unknown>;
}

/** A button under a message: Discord's component, reduced to what the channel sends. */
export interface DiscordButton {
  label: string;
  customId: string;
  style: 'primary' | 'success' | 'danger' | 'secondary';
}

const BUTTON_STYLE = { primary: 1, secondary: 2, success: 3, danger: 4 } as const;

/** One action row (Discord allows five buttons per row) of buttons. */
export function actionRows(buttons: readonly DiscordButton[]): unknown[] {
  const rows: unknown[] = [];
  for (let index = 0; index < buttons.length; index += 5) {
    rows.push({
      type: 1,
      components: buttons.slice(index, index + 5).map((button) => ({
        type: 2,
        style: BUTTON_STYLE[button.style],
        label: button.label.slice(0, 80),
        custom_id: button.customId,
      })),
    });
  }
  return rows;
}

/**
 * Agent text never pings anyone: a reply that says `@everyone` (an injected agent may try) is
 * shown, not delivered as a mention.
 */
const NO_MENTIONS = { parse: [] as string[] };

/**
 * How the delivery core writes Discord messages: POST and PATCH of channel messages through
 * discord.js's REST client (which waits out 429s by their retry_after). Discord shows Markdown, so
 * the agent's Markdown passes through as it is.
 */
export class DiscordReplies implements PlatformReplies {
  readonly maxMessageChars = DISCORD_MESSAGE_CHARS;
  /** Channels that answered 403, until when they are left alone. */
  readonly #forbidden = new Map<string, number>();
  /** The writes in flight, aborted together when `deps.signal` is. */
  readonly #live = new Set<AbortController>();

  constructor(
    private readonly rest: DiscordRest,
    private readonly deps: {
      clock: Clock;
      logger: Logger;
      /**
       * Aborted at the channel's stop: writes still queued in discord.js (behind a rate limit) are
       * dropped, not sent after the spool was handed to the next start, which would post them again.
       */
      signal?: AbortSignal;
      /** Told when a channel refuses the bot (403), and when a write goes through again. */
      onForbidden?: (channel: string) => void;
      onWritten?: () => void;
    },
  ) {
    deps.signal?.addEventListener(
      'abort',
      () => {
        for (const controller of this.#live) controller.abort();
      },
      { once: true },
    );
  }

  render(markdown: string): string {
    return markdown;
  }

  async send(
    conversation: string,
    text: string,
    options: { replyTo?: string; buttons?: readonly DiscordButton[]; key?: string } = {},
  ): Promise<string> {
    this.#refuseForbidden(conversation);
    const nonce = options.key ? nonceOf(options.key) : undefined;
    const message = (await this.#call(conversation, (signal) =>
      this.rest.post(Routes.channelMessages(conversation), {
        body: {
          content: text,
          allowed_mentions: NO_MENTIONS,
          ...(options.replyTo
            ? { message_reference: { message_id: options.replyTo, fail_if_not_exists: false } }
            : {}),
          ...(options.buttons?.length ? { components: actionRows(options.buttons) } : {}),
          ...(nonce ? { nonce, enforce_nonce: true } : {}),
        },
        signal,
      }),
    )) as { id: string; content?: string };
    // A repeated nonce returns the message made the first time, with its first text: bring it up to date.
    if (nonce && message.content !== undefined && message.content !== text)
      await this.edit(conversation, message.id, text);
    return message.id;
  }

  async edit(conversation: string, messageId: string, text: string): Promise<void> {
    this.#refuseForbidden(conversation);
    await this.#call(conversation, (signal) =>
      this.rest.patch(Routes.channelMessage(conversation, messageId), {
        body: { content: text, allowed_mentions: NO_MENTIONS },
        signal,
      }),
    );
  }

  /**
   * One write with its own abort signal (discord.js adds a listener to the signal of every request
   * and never removes it: one long-lived signal would collect a listener per message), aborted
   * with the rest at the channel's stop.
   */
  async #call<T>(conversation: string, write: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    if (this.deps.signal?.aborted) controller.abort();
    this.#live.add(controller);
    try {
      const written = await write(controller.signal);
      this.deps.onWritten?.();
      return written;
    } catch (error) {
      if (isForbidden(error)) {
        this.deps.onForbidden?.(conversation);
        this.#forbidden.set(conversation, this.deps.clock.now() + FORBIDDEN_CHANNEL_MS);
        this.deps.logger.warn(
          { err: error, channel: conversation },
          'discord: the bot may not post in this channel (403); replies there fail until its permissions are fixed',
        );
        throw forbiddenError(conversation);
      }
      throw error;
    } finally {
      this.#live.delete(controller);
    }
  }

  #refuseForbidden(conversation: string): void {
    const until = this.#forbidden.get(conversation);
    if (until === undefined) return;
    if (until > this.deps.clock.now()) throw forbiddenError(conversation);
    this.#forbidden.delete(conversation);
  }
}

/** Discord's nonce: at most 25 characters, the same for the same key. */
export function nonceOf(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 25);
}

function forbiddenError(channel: string): OpenLegionError {
  return new OpenLegionError(
    'CHAN_API_ERROR',
    `Discord: the bot may not post in channel ${channel} (403 Missing Permissions); give it Send Messages there, then retry the dead letter`,
    { details: { channel: 'discord', discord_channel: channel, status: 403 } },
  );
}

/** Whether Discord refused because the bot may not post there (403, 50001 Missing Access, 50013 Missing Permissions). */
export function isForbidden(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { status, code } = error as { status?: unknown; code?: unknown };
  return status === 403 || code === 50001 || code === 50013;
}
