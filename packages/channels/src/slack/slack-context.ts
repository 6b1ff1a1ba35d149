import type { Clock } from '@openlegion/infra/clock';
import type { ChannelMesh } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { ChannelPairing } from '../core/channel-pairing.js';
import type { ChannelUser, ChannelUsers } from '../core/channel-users.js';
import type { InboundMessage } from '../core/delivery-contract.js';
import type { SlackBlock, SlackReplies, SlackWebApi } from './slack-replies.js';

/** What the event handlers work with; one per running channel. */
export interface SlackContext {
  api: SlackWebApi;
  replies: SlackReplies;
  mesh: ChannelMesh;
  users: ChannelUsers;
  pairing: ChannelPairing<string, ChannelUser>;
  clock: Clock;
  logger: Logger;
  /** The bot's user id (`U…`), as auth.test named it: mentions read `<@ID>`. */
  botUserId: string;
  defaultAgent: string | undefined;
  /** Channels the bot answers in when mentioned (DMs always). */
  allowedChannels: ReadonlySet<string>;
  /** Hand a chat to the delivery core; false when it was taken in before (a replay). */
  submit(message: Omit<InboundMessage, 'channel' | 'receivedAt'>): boolean;
  /** Claim a message that is not a chat (pairing, a command); false when it was handled before. */
  claim(key: string): boolean;
}

/** Send a short answer (Markdown, rendered to mrkdwn), optionally with blocks (buttons). */
export async function say(
  context: SlackContext,
  conversation: string,
  markdown: string,
  blocks?: SlackBlock[],
): Promise<string> {
  const text = context.replies.render(markdown);
  if (!blocks) return context.replies.send(conversation, text, {});
  const answer = await context.api.chat.postMessage({ channel: conversation, text, blocks });
  return answer.ts ?? '';
}

/** The agent a person's messages go to: their choice, else the default agent, else the first. */
export function activeAgentOf(context: SlackContext, user: ChannelUser): string | undefined {
  const names = context.mesh.agents().map((agent) => agent.name);
  if (user.activeAgent && names.includes(user.activeAgent)) return user.activeAgent;
  if (context.defaultAgent && names.includes(context.defaultAgent)) return context.defaultAgent;
  return names[0];
}
