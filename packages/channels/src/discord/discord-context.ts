import type { Clock } from '@openlegion/infra/clock';
import type { ChannelMesh } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { ChannelPairing } from '../core/channel-pairing.js';
import type { ChannelUser, ChannelUsers } from '../core/channel-users.js';
import type { InboundMessage } from '../core/delivery-contract.js';
import type { DiscordButton, DiscordReplies, DiscordRest } from './discord-replies.js';

/** What the event handlers work with; one per running channel. */
export interface DiscordContext {
  rest: DiscordRest;
  replies: DiscordReplies;
  mesh: ChannelMesh;
  users: ChannelUsers;
  pairing: ChannelPairing<string, ChannelUser>;
  /** Hand a chat to the delivery core (spooled, answered once); false for a platform id seen before. */
  submit(message: Omit<InboundMessage, 'channel' | 'receivedAt'>): boolean;
  clock: Clock;
  logger: Logger;
  /** The bot's own user id (mentions of it address the bot). */
  botId: string;
  defaultAgent: string | undefined;
  /** Server channels the bot answers in (when mentioned); DMs always. */
  allowedChannels: ReadonlySet<string>;
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
export function activeAgentOf(context: DiscordContext, user: ChannelUser): string | undefined {
  const names = context.mesh.agents().map((agent) => agent.name);
  if (user.activeAgent && names.includes(user.activeAgent)) return user.activeAgent;
  if (context.defaultAgent && names.includes(context.defaultAgent)) return context.defaultAgent;
  return names[0];
}

/**
 * The agent conversation of a DM (the person's) or a server channel (shared by its paired
 * members, so what is said in a server never lands in anyone's DM conversation).
 */
export function discordConversationId(
  place: { channelId: string; inGuild: boolean },
  userId: string,
): string {
  return place.inGuild ? `discord-channel${place.channelId}` : `discord-${userId}`;
}

/** The conversation `agent` has with this place: {@link discordConversationId}, `-N` after N `/reset`s. */
export function agentConversationId(
  context: DiscordContext,
  place: { channelId: string; inGuild: boolean },
  userId: string,
  agent: string,
): string {
  return context.users.conversationId(discordConversationId(place, userId), agent);
}
