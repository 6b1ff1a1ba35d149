import { isAgentDirective } from '@openlegion/protocol';
import { Routes } from 'discord.js';
import { looksLikeSecret } from '../telegram/secret-detector.js';
import { APPROVAL_BUTTON_PREFIX, pressApprovalButton } from './discord-approvals.js';
import { DISCORD_COMMANDS, switchAgent, USE_AGENT_BUTTON_PREFIX } from './discord-commands.js';
import { activeAgentOf, agentConversationId, type DiscordContext, say } from './discord-context.js';
import type { DiscordInbound } from './discord-inbound.js';
import { parseCommand } from './discord-inbound.js';

type MessageInbound = Extract<DiscordInbound, { kind: 'message' }>;
type ButtonInbound = Extract<DiscordInbound, { kind: 'button' }>;
type CommandInbound = Extract<DiscordInbound, { kind: 'command' }>;

export const HOW_TO_PAIR =
  'This bot answers paired users only. Ask its owner for a pairing code (`openlegion discord pair`), then send `/pair CODE` to me in a DM.';

const SECRET_WARNING =
  'That looks like an API key or token, so it was not sent to the agent. Keys never go through chat: set them on the host (`openlegion vault set NAME`). Delete your message.';

/** Interaction callback types (https://discord.com/developers/docs/interactions/receiving-and-responding). */
const CALLBACK = { CHANNEL_MESSAGE: 4, UPDATE_MESSAGE: 7 } as const;
/** The EPHEMERAL message flag: only the presser sees the answer. */
const EPHEMERAL = 1 << 6;

/** Act on one event: pairing, commands, a chat with the user's agent, or a button press. */
export async function handleInbound(context: DiscordContext, inbound: DiscordInbound): Promise<void> {
  if (inbound.kind === 'message') return handleMessage(context, inbound);
  if (inbound.kind === 'button') return handleButton(context, inbound);
  if (inbound.kind === 'command') return handleSlashCommand(context, inbound);
  context.logger.debug({ reason: inbound.reason }, 'discord event ignored');
}

async function handleMessage(context: DiscordContext, message: MessageInbound): Promise<void> {
  const { channelId, author, text, id } = message;
  if (message.inGuild) {
    // Mention-only, and only where the owner allowed it: a bot in a busy server stays quiet.
    if (!message.mentioned) return;
    if (!context.allowedChannels.has(channelId)) {
      context.logger.debug(
        { channel: channelId },
        'discord: mention in a channel not in allowed_channels ignored',
      );
      return;
    }
  }
  const command = parseCommand(text);
  const user = context.users.get(author.id);
  if (command?.name === 'pair') {
    if (user) return say(context, channelId, 'You are already paired.');
    if (message.inGuild) return say(context, channelId, 'Pair in a DM with me, not in a server channel.');
    return pair(context, message, command.args);
  }
  if (!user) {
    if (context.users.firstTimeUnpaired(author.id)) await say(context, channelId, HOW_TO_PAIR);
    return;
  }
  if (looksLikeSecret(text)) {
    context.logger.warn({ user: author.id }, 'discord: message that looks like a key refused');
    return say(context, channelId, SECRET_WARNING, { replyTo: id });
  }
  const spec = command ? DISCORD_COMMANDS[command.name] : undefined;
  if (command && !spec && !isAgentDirective(command.name))
    return say(context, channelId, 'Unknown command. /help lists them.');
  if (command && spec) {
    if (spec.ownerOnly && user.role !== 'owner')
      return say(context, channelId, `Only the owner can use /${command.name}.`);
    return spec.run({
      context,
      user,
      channelId,
      inGuild: message.inGuild,
      messageId: id,
      args: command.args,
    });
  }
  if (text === '') return;
  const agent = activeAgentOf(context, user);
  if (!agent) return say(context, channelId, 'No agents are running.');
  // A DM is where the bot reaches its owner (notices, approvals, mirrored replies).
  if (!message.inGuild && user.ownerConversation !== channelId)
    context.users.setConversation(user.userId, channelId);
  context.submit({
    platformId: id,
    conversation: channelId,
    sender: user.userId,
    agent,
    text,
    ...(message.inGuild ? { replyTo: id } : {}),
    conversationId: agentConversationId(context, message, user.userId, agent),
    showUsage: user.debug,
  });
}

async function pair(context: DiscordContext, message: MessageInbound, code: string): Promise<void> {
  const { channelId, author } = message;
  if (!code) return say(context, channelId, 'Usage: `/pair CODE` with the code the owner gave you.');
  const outcome = context.pairing.redeem(author.id, author.name, code);
  const log = context.logger.child({ user: author.id });
  switch (outcome.kind) {
    case 'paired':
      log.info({ role: outcome.user.role }, 'discord user paired');
      context.users.setConversation(author.id, channelId);
      return say(
        context,
        channelId,
        outcome.user.role === 'owner'
          ? 'Paired: you are the owner of this bot. Write to talk to your agent; /help lists the commands.'
          : 'Paired. Write to talk to your agent; /help lists the commands.',
      );
    case 'already-paired':
      return say(context, channelId, 'You are already paired.');
    case 'invalid':
      log.warn('discord pairing code refused');
      return say(context, channelId, 'That code is not valid (wrong, used or expired).');
    case 'rate-limited': {
      log.warn('discord pairing attempts rate-limited');
      if (!outcome.first) return;
      const minutes = Math.max(1, Math.ceil(outcome.retryAfterMs / 60_000));
      return say(context, channelId, `Too many tries. Wait ${minutes} minutes before the next one.`);
    }
  }
}

async function handleButton(context: DiscordContext, button: ButtonInbound): Promise<void> {
  const user = context.users.get(button.user.id);
  const respond = async (body: unknown) => {
    try {
      await context.rest.post(Routes.interactionCallback(button.interactionId, button.interactionToken), {
        body,
      });
    } catch (error) {
      context.logger.warn({ err: error }, 'discord: interaction answer failed');
    }
  };
  const ephemeral = (content: string) =>
    respond({ type: CALLBACK.CHANNEL_MESSAGE, data: { content, flags: EPHEMERAL } });
  if (!user) return ephemeral('You are not paired.');
  if (button.customId.startsWith(APPROVAL_BUTTON_PREFIX)) {
    const answer = await pressApprovalButton(context, user, button.customId);
    if (user.role !== 'owner') return ephemeral(answer);
    // The decision replaces the buttons, so nobody presses them twice.
    return respond({
      type: CALLBACK.UPDATE_MESSAGE,
      data: { content: `${button.messageContent}\n\n**${answer}**`.trim().slice(0, 2_000), components: [] },
    });
  }
  if (button.customId.startsWith(USE_AGENT_BUTTON_PREFIX))
    return ephemeral(switchAgent(context, user, button.customId.slice(USE_AGENT_BUTTON_PREFIX.length)));
  return ephemeral('That button is not understood.');
}

/**
 * A slash command: answered at once (Discord wants an answer within three seconds) by showing the
 * command, then run as the text command it stands for. In a server channel outside
 * `allowed_channels` only the person who typed it is told.
 */
async function handleSlashCommand(context: DiscordContext, command: CommandInbound): Promise<void> {
  const allowed = !command.inGuild || context.allowedChannels.has(command.channelId);
  try {
    await context.rest.post(Routes.interactionCallback(command.interactionId, command.interactionToken), {
      body: {
        type: CALLBACK.CHANNEL_MESSAGE,
        data: !allowed
          ? { content: 'I do not answer in this channel.', flags: EPHEMERAL }
          : command.text.startsWith('/pair')
            ? // A code is never shown back where others could read it.
              { content: 'Pairing…', flags: EPHEMERAL }
            : {
                content: `\`${command.text.replace(/`/g, "'").slice(0, 1_900)}\``,
                allowed_mentions: { parse: [] },
              },
      },
    });
  } catch (error) {
    context.logger.warn({ err: error }, 'discord: slash command answer failed');
  }
  if (!allowed) return;
  await handleMessage(context, {
    kind: 'message',
    id: command.interactionId,
    channelId: command.channelId,
    inGuild: command.inGuild,
    author: command.user,
    text: command.text,
    mentioned: true,
  });
}
