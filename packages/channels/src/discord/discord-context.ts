import type { Clock } from '@openlegion/infra/clock';
import type { ChannelMesh } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { DiscordPairing } from './discord-pairing.js';
import type { DiscordRelay } from './discord-relay.js';
import type { DiscordButton, DiscordReplies, DiscordRest } from './discord-replies.js';
import type { DiscordUser, DiscordUsers } from './discord-users.js';

/** What the event handlers work with; one per running channel. */
export interface DiscordContext {
  rest: DiscordRest;
  replies: DiscordReplies;
  mesh: ChannelMesh;
  users: DiscordUsers;
  pairing: DiscordPairing;
  relay: DiscordRelay;
  clock: Clock;
  logger: Logger;
  /** The bot's own user id (mentions of it address the bot). */
  botId: string;
  defaultAgent: string | undefined;
  /** Server channels the bot answers in (when mentioned); DMs always. */
  allowedChannels: ReadonlySet<string>;
  whenBusy: 'steer' | 'queue';
  /** The DM channel of a user (POST /users/@me/channels, remembered). */
  dmChannel(userId: string): Promise<string>;
}

/** Send a short answer (Discord Markdown). A refusal is logged, not thrown: an answer is best effort. */
export async function say(
  context: DiscordContext,
  channelId: string,
  text: string,
  options: { replyTo?: string; buttons?: readonly DiscordButton[] } = {},
): Promise<void> {
  try {
    await context.replies.send(channelId, text, options);
  } catch (error) {
    context.logger.warn({ err: error, channel: channelId }, 'discord: answer could not be sent');
  }
}

/** The agent a user's messages go to: their choice, else the default agent, else the first. */
export function activeAgentOf(context: DiscordContext, user: DiscordUser): string | undefined {
  const names = context.mesh.agents().map((agent) => agent.name);
  if (user.activeAgent && names.includes(user.activeAgent)) return user.activeAgent;
  if (context.defaultAgent && names.includes(context.defaultAgent)) return context.defaultAgent;
  return names[0];
}
