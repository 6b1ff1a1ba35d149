import type { PlatformReplies } from '../core/delivery-contract.js';
import { markdownToMrkdwn } from './markdown-to-mrkdwn.js';

/** The parts of the Web API client the channel uses (Bolt's `app.client`; a fake in unit tests). */
export interface SlackWebApi {
  chat: {
    postMessage(args: {
      channel: string;
      text: string;
      thread_ts?: string;
      blocks?: SlackBlock[];
      unfurl_links?: boolean;
    }): Promise<{ ts?: string }>;
    update(args: { channel: string; ts: string; text: string; blocks?: SlackBlock[] }): Promise<unknown>;
  };
}

/** A Block Kit block, as much as the channel builds (sections and buttons). */
export type SlackBlock =
  | { type: 'section'; block_id?: string; text: { type: 'mrkdwn'; text: string } }
  | {
      type: 'actions';
      block_id?: string;
      elements: {
        type: 'button';
        action_id: string;
        text: { type: 'plain_text'; text: string };
        value: string;
        style?: 'primary' | 'danger';
      }[];
    };

/** Slack refuses a `text` longer than this (msg_too_long). */
export const SLACK_TEXT_LIMIT = 40_000;
/** A section block (what a message with buttons needs) holds this many characters. */
export const SLACK_SECTION_LIMIT = 3_000;

/**
 * Where a conversation's replies go: a DM or channel id, with the thread (`C1/1700.0001`) when a
 * channel mention is answered in its thread.
 */
export function parseConversation(conversation: string): { channel: string; threadTs?: string } {
  const [channel = conversation, threadTs] = conversation.split('/');
  return threadTs ? { channel, threadTs } : { channel };
}

/** How the delivery core writes Slack messages: mrkdwn in `text`, threads from the conversation id. */
export class SlackReplies implements PlatformReplies {
  readonly maxMessageChars = SLACK_TEXT_LIMIT;

  constructor(private readonly api: SlackWebApi) {}

  render(markdown: string): string {
    return markdownToMrkdwn(markdown);
  }

  async send(conversation: string, text: string, options: { replyTo?: string } = {}): Promise<string> {
    const { channel, threadTs } = parseConversation(conversation);
    const thread = threadTs ?? options.replyTo;
    const answer = await this.api.chat.postMessage({
      channel,
      text,
      // A link preview under every streamed edit is noise; the agent's links stay clickable.
      unfurl_links: false,
      ...(thread ? { thread_ts: thread } : {}),
    });
    if (!answer.ts) throw new Error('chat.postMessage answered without a ts');
    return answer.ts;
  }

  async edit(conversation: string, messageId: string, text: string): Promise<void> {
    await this.api.chat.update({ channel: parseConversation(conversation).channel, ts: messageId, text });
  }
}
