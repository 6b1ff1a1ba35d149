import type { PlatformReplies } from '../core/delivery-contract.js';
import { markdownToMrkdwn } from './markdown-to-mrkdwn.js';
import { slackRefusalOf } from './slack-api-errors.js';

/** The parts of the Web API client the channel uses (Bolt's `app.client`). */
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

/** What a person can do about a refusal Slack will repeat (for the channel's status and log). */
export function refusalProblem(error: unknown, conversation: string): string | undefined {
  const refusal = slackRefusalOf(error);
  if (!refusal) return undefined;
  switch (refusal.error) {
    case 'missing_scope':
      return `the Slack app lacks the bot scope ${refusal.needed ?? '(unnamed)'}: add it and reinstall the app`;
    case 'not_in_channel':
      return `the bot is not in channel ${parseConversation(conversation).channel}: invite it (/invite @bot)`;
    case 'channel_not_found':
      return `Slack knows no channel ${parseConversation(conversation).channel} (or the bot cannot see it)`;
    default:
      return `Slack refused a reply (${refusal.error})`;
  }
}

/**
 * How the delivery core writes Slack messages: mrkdwn in `text` (40,000 characters), the thread
 * from the conversation id. A refusal is rethrown (the core retries with backoff, then dead-letters)
 * after `onRefused` has been told what to fix.
 */
export class SlackReplies implements PlatformReplies {
  readonly maxMessageChars = SLACK_TEXT_LIMIT;

  constructor(
    private readonly api: SlackWebApi,
    private readonly onRefused: (problem: string, error: unknown) => void = () => {},
  ) {}

  render(markdown: string): string {
    return markdownToMrkdwn(markdown);
  }

  async send(conversation: string, text: string, options: { replyTo?: string } = {}): Promise<string> {
    const { channel, threadTs } = parseConversation(conversation);
    const thread = threadTs ?? options.replyTo;
    try {
      const answer = await this.api.chat.postMessage({
        channel,
        text,
        // A link preview under every streamed edit is noise; the agent's links stay clickable.
        unfurl_links: false,
        ...(thread ? { thread_ts: thread } : {}),
      });
      if (!answer.ts) throw new Error('chat.postMessage answered without a ts');
      return answer.ts;
    } catch (error) {
      this.#refused(error, conversation);
      throw error;
    }
  }

  async edit(conversation: string, messageId: string, text: string): Promise<void> {
    try {
      await this.api.chat.update({ channel: parseConversation(conversation).channel, ts: messageId, text });
    } catch (error) {
      this.#refused(error, conversation);
      throw error;
    }
  }

  #refused(error: unknown, conversation: string): void {
    const problem = refusalProblem(error, conversation);
    if (problem) this.onRefused(problem, error);
  }
}
