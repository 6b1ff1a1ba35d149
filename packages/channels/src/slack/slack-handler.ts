import { isAgentDirective } from '@openlegion/protocol';
import { escapeMarkdown } from '../telegram/reply-lines.js';
import { looksLikeSecret } from '../telegram/secret-detector.js';
import { decideByWords, listApprovals } from './slack-approvals.js';
import { activeAgentOf, type SlackContext, say } from './slack-context.js';
import { parseTextCommand, type SlackInbound } from './slack-inbound.js';
import type { SlackPairedUser, SlackScope } from './slack-users.js';

type SlackMessage = Extract<SlackInbound, { kind: 'message' }>;

export const SLACK_HOW_TO_PAIR =
  'This bot answers paired people only\\. Ask its owner for a pairing code \\(`openlegion channels pair slack`\\), then send `!pair CODE` here in a direct message\\.';

const SECRET_WARNING =
  'That looks like an API key or token, so it was not sent to the agent\\. Keys never go through chat: set them on the host \\(`openlegion vault set NAME`\\)\\. Delete your message\\.';

interface CommandCall {
  context: SlackContext;
  user: SlackPairedUser;
  message: SlackMessage;
  args: string;
}

interface TextCommand {
  summary: string;
  ownerOnly: boolean;
  run(call: CommandCall): Promise<unknown>;
}

const scopeOf = (message: SlackMessage, user: SlackPairedUser): SlackScope =>
  message.via === 'dm' ? { kind: 'dm', userId: user.userId } : { kind: 'channel', channel: message.channel };

/** Where the answer to `message` goes: the DM, or the mention's thread. */
export const conversationOf = (message: SlackMessage): string =>
  message.threadTs ? `${message.channel}/${message.threadTs}` : message.channel;

function switchAgent(context: SlackContext, user: SlackPairedUser, name: string): string {
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
    run: ({ context, user, message }) => {
      const lines = Object.entries(SLACK_COMMANDS)
        .filter(([, spec]) => !spec.ownerOnly || user.role === 'owner')
        .map(([name, spec]) => `\`!${name}\` — ${escapeMarkdown(spec.summary)}`);
      return say(context, message.channel, ['Write to talk to your agent\\. Commands:', ...lines].join('\n'));
    },
  },
  agents: {
    summary: 'list the agents',
    ownerOnly: false,
    run: ({ context, user, message }) => {
      const agents = context.mesh.agents();
      if (agents.length === 0) return say(context, message.channel, 'No agents are running\\.');
      const active = activeAgentOf(context, user);
      const lines = agents.map(
        (agent) => `${agent.name === active ? '▸' : '•'} ${escapeMarkdown(agent.name)} \\(${agent.state}\\)`,
      );
      return say(context, message.channel, [...lines, 'Switch with `!use NAME`\\.'].join('\n'));
    },
  },
  use: {
    summary: 'talk to another agent: !use NAME',
    ownerOnly: false,
    run: ({ context, user, message, args }) =>
      say(context, message.channel, switchAgent(context, user, args)),
  },
  steer: {
    summary: 'hand a message to the running turn: !steer TEXT',
    ownerOnly: true,
    run: async ({ context, user, message, args }) => {
      const agent = activeAgentOf(context, user);
      if (!args) return say(context, message.channel, 'Usage: !steer TEXT');
      if (!agent) return say(context, message.channel, 'No agents are running\\.');
      void context.relay.start({
        conversation: conversationOf(message),
        agent,
        request: {
          message: args,
          conversation_id: context.users.conversationId(scopeOf(message, user), agent),
          mode: 'steer',
          trace_id: `slack-${message.ts}`,
        },
        showUsage: user.debug,
      });
    },
  },
  broadcast: {
    summary: 'send a message to every agent: !broadcast TEXT',
    ownerOnly: true,
    run: async ({ context, user, message, args }) => {
      if (!args) return say(context, message.channel, 'Usage: !broadcast TEXT');
      const agents = context.mesh.agents();
      if (agents.length === 0) return say(context, message.channel, 'No agents are running\\.');
      for (const agent of agents) {
        void context.relay.start({
          conversation: conversationOf(message),
          agent: agent.name,
          header: `**${escapeMarkdown(agent.name)}**`,
          request: {
            message: args,
            conversation_id: context.users.conversationId(scopeOf(message, user), agent.name),
            trace_id: `slack-${message.ts}-${agent.name}`.slice(0, 100),
          },
          showUsage: user.debug,
        });
      }
    },
  },
  approvals: {
    summary: 'what waits for your approval',
    ownerOnly: true,
    run: ({ context, message }) => listApprovals(context, message.channel),
  },
  approve: {
    summary: 'approve what waits: !approve ID [note]',
    ownerOnly: true,
    run: async ({ context, message, args }) =>
      say(context, message.channel, escapeMarkdown(await decideByWords(context, 'approve', args))),
  },
  reject: {
    summary: 'reject what waits: !reject ID [why]',
    ownerOnly: true,
    run: async ({ context, message, args }) =>
      say(context, message.channel, escapeMarkdown(await decideByWords(context, 'reject', args))),
  },
};

async function pair(context: SlackContext, message: SlackMessage, code: string): Promise<unknown> {
  const { channel, user } = message;
  if (message.via !== 'dm')
    return say(context, conversationOf(message), 'Pair in a direct message with me, not in a channel\\.');
  if (!code) return say(context, channel, 'Usage: `!pair CODE` with the code the owner gave you\\.');
  const outcome = context.pairing.redeem(user, user, channel, code);
  const log = context.logger.child({ user });
  switch (outcome.kind) {
    case 'paired':
      log.info({ role: outcome.user.role }, 'slack user paired');
      return say(
        context,
        channel,
        outcome.user.role === 'owner'
          ? 'Paired: you are the owner of this bot\\. Write to talk to your agent; `!help` lists the commands\\.'
          : 'Paired\\. Write to talk to your agent; `!help` lists the commands\\.',
      );
    case 'already-paired':
      return say(context, channel, 'You are already paired\\.');
    case 'invalid':
      log.warn('slack pairing code refused');
      return say(context, channel, 'That code is not valid \\(wrong, used or expired\\)\\.');
    case 'rate-limited': {
      log.warn('slack pairing attempts rate-limited');
      if (!outcome.first) return;
      const minutes = Math.max(1, Math.ceil(outcome.retryAfterMs / 60_000));
      return say(context, channel, `Too many tries\\. Wait ${minutes} minutes before the next one\\.`);
    }
  }
}

/**
 * Act on one message (already claimed, so never twice): pairing, a DM's text commands, or a chat
 * with the person's agent. Returns once taken in; the reply streams on in the relay.
 */
export async function handleSlackMessage(context: SlackContext, message: SlackMessage): Promise<void> {
  if (message.via === 'mention' && !context.allowedChannels.has(message.channel)) {
    context.logger.debug(
      { channel: message.channel },
      'slack mention ignored: channel not in allowed_channels',
    );
    return;
  }
  const command = message.via === 'dm' ? parseTextCommand(message.text) : undefined;
  const user = context.users.get(message.user);
  if (command?.name === 'pair') {
    if (user) return void (await say(context, message.channel, 'You are already paired\\.'));
    return void (await pair(context, message, command.args));
  }
  if (!user) {
    // One answer per person, then silence: an unpaired stranger cannot make the bot talk.
    if (context.users.firstTimeUnpaired(message.user))
      await say(context, conversationOf(message), SLACK_HOW_TO_PAIR);
    return;
  }
  if (message.via === 'dm' && user.dmChannel !== message.channel)
    context.users.noteDm(user.userId, message.channel);
  if (looksLikeSecret(message.text)) {
    context.logger.warn({ user: user.userId }, 'message that looks like a key refused');
    return void (await say(context, conversationOf(message), SECRET_WARNING));
  }
  if (command && !isAgentDirective(command.name)) {
    const spec = SLACK_COMMANDS[command.name];
    if (!spec) return void (await say(context, message.channel, 'Unknown command\\. `!help` lists them\\.'));
    if (spec.ownerOnly && user.role !== 'owner')
      return void (await say(context, message.channel, `Only the owner can use !${command.name}\\.`));
    await spec.run({ context, user, message, args: command.args });
    return;
  }
  if (message.text === '') return;
  const agent = activeAgentOf(context, user);
  if (!agent) return void (await say(context, conversationOf(message), 'No agents are running\\.'));
  void context.relay.start({
    conversation: conversationOf(message),
    agent,
    request: {
      message: message.text,
      conversation_id: context.users.conversationId(scopeOf(message, user), agent),
      trace_id: `slack-${message.ts}`,
    },
    showUsage: user.debug,
  });
}
