import type { ChannelName } from '@openlegion/protocol';

/**
 * The contract between a platform (Telegram, Discord, Slack) and the delivery core that every
 * channel shares (packages/channels/src/core/). A platform turns its events into
 * {@link InboundMessage}s and knows how to send and edit a message ({@link PlatformReplies}); the
 * core does the rest once for all of them: dedupe by the platform's id, a durable inbound spool in
 * mesh.db (a message accepted is answered after a host restart), one logical reply per message
 * (after a retry or restart it edits the message it already sent, never sends a second), retries
 * with backoff, a dead-letter list, mirroring to the owner's other channels, and `when_busy`.
 */

/** One message from a person, as the platform hands it to the core. */
export interface InboundMessage {
  channel: ChannelName;
  /**
   * The platform's own id of this message or event (Telegram update_id, Discord message id, Slack
   * event_id): the dedupe key, unique per channel. A replayed event carries the same id.
   */
  platformId: string;
  /** Where the reply goes: a chat, channel or DM id (with a thread id where the platform has them). */
  conversation: string;
  /** The platform's id of the person who wrote it (the pairing and owner model key on it). */
  sender: string;
  /** The agent that answers (already resolved from `/use`, the default agent, a mention). */
  agent: string;
  text: string;
  /** The platform's id of the message to answer (quoted in groups and servers). */
  replyTo?: string;
  /** A first line of the reply (Markdown), e.g. the agent's name in a broadcast. */
  header?: string;
  /** Epoch ms when the platform gave it to us. */
  receivedAt: number;
  /**
   * The agent's conversation it belongs to (a platform's `/reset` starts a new one); default
   * `<channel>-<conversation>-<sender>`.
   */
  conversationId?: string;
  /** Show the model and tokens under the reply (Telegram's `/debug`). */
  showUsage?: boolean;
  /** `steer`: an explicit `/steer` (hand it to the running turn whatever `when_busy` says). */
  mode?: 'steer';
}

/** How the core writes one platform's messages. Errors it throws are retried with backoff. */
export interface PlatformReplies {
  /** Characters one message may hold on this platform, after {@link render}. */
  readonly maxMessageChars: number;
  /** Markdown from the agent → what the platform shows (Telegram HTML, Discord Markdown, Slack mrkdwn). */
  render(markdown: string): string;
  /** Send a new message; returns its platform id (kept in the spool so a retry edits it). */
  send(conversation: string, text: string, options: { replyTo?: string; markdown?: string }): Promise<string>;
  /**
   * Replace the text of a message this bot sent. `markdown` is what `text` was rendered from (a
   * platform that refuses its own markup may fall back to it).
   */
  edit(conversation: string, messageId: string, text: string, options?: { markdown?: string }): Promise<void>;
}

/** A message's place in the spool. */
export type DeliveryState = 'accepted' | 'running' | 'answered' | 'dead';

/** A message that kept failing, as `openlegion channels dead-letters` lists it. */
export interface DeadLetter {
  id: number;
  channel: ChannelName;
  platformId: string;
  agent: string;
  /** The first 200 characters of the message. */
  preview: string;
  attempts: number;
  lastError: string;
  /** Epoch ms. */
  failedAt: number;
}
