import { isAgentDirective } from '@openlegion/protocol';
import type { ChannelUser } from '../core/channel-users.js';
import { escapeMarkdown } from '../core/reply-lines.js';
import { looksLikeSecret } from '../telegram/secret-detector.js';
import { decideByWords, listApprovals } from './slack-approvals.js';
import { activeAgentOf, type SlackContext, say } from './slack-context.js';
import { parseTextCommand, type SlackInbound } from './slack-inbound.js';

type SlackMessage = Extract<SlackInbound, { kind: 'message' }>;

export const SLACK_HOW_TO_PAIR =
  'This bot answers paired people only\\. Ask its owner for a pairing code \\(`openlegion slack pair`\\), then send `!pair CODE` here in a direct message\\.';

const SECRET_WARNING =
  'That looks like an API key or token, so it was not sent to the agent\\. Keys never go through chat: set them on the host \\(`openlegion vault set NAME`\\)\\. Delete your message\\.';

/** One message being handled: where it came from, and how to answer it once. */
interface Turn {
  context: SlackContext;
  message: SlackMessage;
  /** `channel:ts`: the message's id in the spool and in the taken-in list. */
  key: string;
  /** Answer (Markdown) where the message was written, unless this message was answered before. */
  answer(markdown: string): Promise<void>;
}

interface CommandCall extends Turn {
  user: ChannelUser;
  args: string;
}

interface TextCommand {
  summary: string;
  ownerOnly: boolean;
  run(call: CommandCall): Promise<void>;
}

/** Where the answer to `message` goes: the DM, or the mention's thread. */
export const conversationOf = (message: SlackMessage): string =>
  message.threadTs ? `${message.channel}/${message.threadTs}` : message.channel;

/** A DM's conversation with an agent is the person's; a channel's is the channel's, shared. */
const conversationBase = (message: SlackMessage, user: ChannelUser): string =>
  message.via === 'dm' ? `slack-${user.userId}` : `slack-channel${message.channel}`;

/** The conversation `agent` has there: `-N` after N `!reset`s. */
const conversationIdOf = (context: SlackContext, message: SlackMessage, user: ChannelUser, agent: string) =>
  context.users.conversationId(conversationBase(message, user), agent);

function switchAgent(context: SlackContext, user: ChannelUser, name: string): string {
  const names = context.mesh.agents().map((agent) => agent.name);
  const list = escapeMarkdown(names.join(', ') || 'none');
  if (!name) return `Usage: !use NAME\\. Agents: ${list}`;
  if (!names.includes(name)) return `There is no agent named ${escapeMarkdown(name)}\\. Agents: ${list}`;
  context.users.setActiveAgent(user.userId, name);
  return `Now talking to ${escapeMarkdown(name)}\\.`;
}

/** The text commands of a DM; `/name` and `!name` both work. */
export const SLACK_COMMANDS: Record<string, TextCommand> = {
  help: {
    summary: 'this list',
    ownerOnly: false,
    run: ({ user, answer }) => {
      const lines = Object.entries(SLACK_COMMANDS)
        .filter(([, spec]) => !spec.ownerOnly || user.role === 'owner')
        .map(([name, spec]) => `\`!${name}\` — ${escapeMarkdown(spec.summary)}`);
      return answer(['Write to talk to your agent\\. Commands:', ...lines].join('\n'));
    },
  },
  agents: {
    summary: 'list the agents',
    ownerOnly: false,
    run: ({ context, user, answer }) => {
      const agents = context.mesh.agents();
      if (agents.length === 0) return answer('No agents are running\\.');
      const active = activeAgentOf(context, user);
      const lines = agents.map(
        (agent) => `${agent.name === active ? '▸' : '•'} ${escapeMarkdown(agent.name)} \\(${agent.state}\\)`,
      );
      return answer([...lines, 'Switch with `!use NAME`\\.'].join('\n'));
    },
  },
  use: {
    summary: 'talk to another agent: !use NAME',
    ownerOnly: false,
    run: ({ context, user, args, answer }) => answer(switchAgent(context, user, args)),
  },
  steer: {
    summary: 'hand a message to the running turn: !steer TEXT',
    ownerOnly: true,
    run: async ({ context, user, message, key, args, answer }) => {
      const agent = activeAgentOf(context, user);
      if (!args) return answer('Usage: !steer TEXT');
      if (!agent) return answer('No agents are running\\.');
      context.submit({
        platformId: key,
        conversation: conversationOf(message),
        sender: user.userId,
        agent,
        text: args,
        conversationId: conversationIdOf(context, message, user, agent),
        mode: 'steer',
        showUsage: user.debug,
      });
    },
  },
  broadcast: {
    summary: 'send a message to every agent: !broadcast TEXT',
    ownerOnly: true,
    run: async ({ context, user, message, key, args, answer }) => {
      if (!args) return answer('Usage: !broadcast TEXT');
      const agents = context.mesh.agents();
      if (agents.length === 0) return answer('No agents are running\\.');
      for (const agent of agents) {
        context.submit({
          platformId: `${key}:${agent.name}`,
          conversation: conversationOf(message),
          sender: user.userId,
          agent: agent.name,
          text: args,
          header: `**${escapeMarkdown(agent.name)}**`,
          conversationId: conversationIdOf(context, message, user, agent.name),
          showUsage: user.debug,
        });
      }
    },
  },
  reset: {
    summary: 'start a new conversation with your agent',
    ownerOnly: true,
    run: ({ context, user, message, answer }) => {
      const agent = activeAgentOf(context, user);
      if (!agent) return answer('No agents are running\\.');
      context.users.resetConversation(conversationBase(message, user), agent);
      return answer(`New conversation with ${escapeMarkdown(agent)}\\.`);
    },
  },
  approvals: {
    summary: 'what waits for your approval',
    ownerOnly: true,
    run: async ({ context, message, key }) => {
      if (context.claim(key)) await listApprovals(context, message.channel);
    },
  },
  approve: {
    summary: 'approve what waits: !approve ID [note]',
    ownerOnly: true,
    run: async ({ context, key, args, answer }) => {
      // Claimed before deciding: a replay must not decide twice.
      if (!context.claim(`${key}:decided`)) return;
      await answer(escapeMarkdown(await decideByWords(context, 'approve', args)));
    },
  },
  reject: {
    summary: 'reject what waits: !reject ID [why]',
    ownerOnly: true,
    run: async ({ context, key, args, answer }) => {
      if (!context.claim(`${key}:decided`)) return;
      await answer(escapeMarkdown(await decideByWords(context, 'reject', args)));
    },
  },
};

async function pair(turn: Turn, code: string): Promise<void> {
  const { context, message, answer } = turn;
  if (message.via !== 'dm') return answer('Pair in a direct message with me, not in a channel\\.');
  if (!code) return answer('Usage: `!pair CODE` with the code the owner gave you\\.');
  if (!context.claim(turn.key)) return;
  const outcome = context.pairing.redeem(message.user, message.user, code);
  const log = context.logger.child({ user: message.user });
  switch (outcome.kind) {
    case 'paired':
      context.users.setConversation(message.user, message.channel);
      log.info({ role: outcome.user.role }, 'slack user paired');
      await say(
        context,
        message.channel,
        outcome.user.role === 'owner'
          ? 'Paired: you are the owner of this bot\\. Write to talk to your agent; `!help` lists the commands\\.'
          : 'Paired\\. Write to talk to your agent; `!help` lists the commands\\.',
      );
      return;
    case 'already-paired':
      await say(context, message.channel, 'You are already paired\\.');
      return;
    case 'invalid':
      log.warn('slack pairing code refused');
      await say(context, message.channel, 'That code is not valid \\(wrong, used or expired\\)\\.');
      return;
    case 'rate-limited': {
      log.warn('slack pairing attempts rate-limited');
      if (!outcome.first) return;
      const minutes = Math.max(1, Math.ceil(outcome.retryAfterMs / 60_000));
      await say(context, message.channel, `Too many tries\\. Wait ${minutes} minutes before the next one\\.`);
    }
  }
}

/**
 * Act on one message: pairing, a DM's text commands, or a chat with the person's agent (handed to
 * the delivery core). Whatever it answers, it answers once: a chat is keyed in the spool, anything
 * else claimed in the taken-in list, both by `channel:ts`.
 */
export async function handleSlackMessage(context: SlackContext, message: SlackMessage): Promise<void> {
  if (message.via === 'mention' && !context.allowedChannels.has(message.channel)) {
    context.logger.debug(
      { channel: message.channel },
      'slack mention ignored: channel not in allowed_channels',
    );
    return;
  }
  const key = `${message.channel}:${message.ts}`;
  const turn: Turn = {
    context,
    message,
    key,
    async answer(markdown) {
      if (context.claim(key)) await say(context, conversationOf(message), markdown);
    },
  };
  const command = message.via === 'dm' ? parseTextCommand(message.text) : undefined;

  const user = context.users.get(message.user);
  if (command?.name === 'pair') {
    if (user) return turn.answer('You are already paired\\.');
    return pair(turn, command.args);
  }
  if (!user) {
    // One answer per person, then silence: an unpaired stranger cannot make the bot talk.
    if (context.users.firstTimeUnpaired(message.user)) await turn.answer(SLACK_HOW_TO_PAIR);
    return;
  }
  if (message.via === 'dm' && user.ownerConversation !== message.channel)
    context.users.setConversation(user.userId, message.channel);
  if (looksLikeSecret(message.text)) {
    context.logger.warn({ user: user.userId }, 'message that looks like a key refused');
    return turn.answer(SECRET_WARNING);
  }
  if (command && !isAgentDirective(command.name)) {
    const spec = SLACK_COMMANDS[command.name];
    if (!spec) return turn.answer('Unknown command\\. `!help` lists them\\.');
    if (spec.ownerOnly && user.role !== 'owner')
      return turn.answer(`Only the owner can use !${command.name}\\.`);
    return spec.run({ ...turn, user, args: command.args });
  }
  if (message.text === '') return;
  const agent = activeAgentOf(context, user);
  if (!agent) return turn.answer('No agents are running\\.');
  const taken = context.submit({
    platformId: key,
    conversation: conversationOf(message),
    sender: user.userId,
    agent,
    text: message.text,
    conversationId: conversationIdOf(context, message, user, agent),
    showUsage: user.debug,
  });
  if (!taken) context.logger.debug({ key }, 'slack message replayed: already taken in');
}
