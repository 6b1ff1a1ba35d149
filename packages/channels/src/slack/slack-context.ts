import type { Clock } from '@openlegion/infra/clock';
import type { ChannelMesh } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { SlackPairing } from './slack-pairing.js';
import type { SlackRelay } from './slack-relay.js';
import { type SlackBlock, SlackReplies, type SlackWebApi } from './slack-replies.js';
import type { SlackPairedUser, SlackUsers } from './slack-users.js';

/** What the event handlers work with; one per running channel. */
export interface SlackContext {
  api: SlackWebApi;
  mesh: ChannelMesh;
  users: SlackUsers;
  pairing: SlackPairing;
  relay: SlackRelay;
  clock: Clock;
  logger: Logger;
  /** The bot's user id (`U…`), as auth.test named it: mentions read `<@ID>`. */
  botUserId: string;
  defaultAgent: string | undefined;
  /** Channels the bot answers in when mentioned (DMs always). */
  allowedChannels: ReadonlySet<string>;
}

/** Send a short answer (Markdown, rendered to mrkdwn), optionally with blocks (buttons). */
export async function say(
  context: SlackContext,
  conversation: string,
  markdown: string,
  blocks?: SlackBlock[],
): Promise<string> {
  const replies = new SlackReplies(context.api);
  if (!blocks) return replies.send(conversation, replies.render(markdown), {});
  const answer = await context.api.chat.postMessage({
    channel: conversation,
    text: replies.render(markdown),
    blocks,
  });
  return answer.ts ?? '';
}

/** The agent a person's messages go to: their choice, else the default agent, else the first. */
export function activeAgentOf(context: SlackContext, user: SlackPairedUser): string | undefined {
  const names = context.mesh.agents().map((agent) => agent.name);
  if (user.activeAgent && names.includes(user.activeAgent)) return user.activeAgent;
  if (context.defaultAgent && names.includes(context.defaultAgent)) return context.defaultAgent;
  return names[0];
}
