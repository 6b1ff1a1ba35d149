import { approvalFromWords } from '@openlegion/protocol';
import type { ChannelUser } from '../core/channel-users.js';
import { decide, offerApproval } from './discord-approvals.js';
import {
  activeAgentOf,
  agentConversationId,
  type DiscordContext,
  discordConversationId,
  say,
} from './discord-context.js';

/** Where a command was sent and by whom. */
export interface DiscordCommandCall {
  context: DiscordContext;
  user: ChannelUser;
  channelId: string;
  inGuild: boolean;
  messageId: string;
  args: string;
}

export interface DiscordCommand {
  summary: string;
  ownerOnly: boolean;
  run(call: DiscordCommandCall): Promise<void>;
}

/** The custom_id prefix of `/agents`' buttons (one per agent; pressing one switches to it). */
export const USE_AGENT_BUTTON_PREFIX = 'use:';

const conversationOf = (call: DiscordCommandCall, agent: string) =>
  agentConversationId(call.context, call, call.user.userId, agent);

/** Make `name` the user's agent; the answer to show. */
export function switchAgent(context: DiscordContext, user: ChannelUser, name: string): string {
  const names = context.mesh.agents().map((agent) => agent.name);
  if (!name) return `Usage: /use NAME. Agents: ${names.join(', ') || 'none'}`;
  if (!names.includes(name)) return `There is no agent named ${name}. Agents: ${names.join(', ') || 'none'}`;
  context.users.setActiveAgent(user.userId, name);
  return `Now talking to ${name}.`;
}

function decisionCommand(decision: 'approve' | 'reject'): DiscordCommand {
  return {
    summary: `${decision} what waits: /${decision} ID`,
    ownerOnly: true,
    async run({ context, channelId, args }) {
      const parsed = approvalFromWords(args.split(/\s+/).filter(Boolean));
      if (!parsed) return say(context, channelId, `Usage: /${decision} ID`);
      const answer = await decide(context, {
        id: parsed.id,
        decision,
        ...(parsed.note ? { note: parsed.note } : {}),
      });
      await say(context, channelId, answer);
    },
  };
}

/** Every text command by name (`/help` lists the ones a user may run). */
export const DISCORD_COMMANDS: Record<string, DiscordCommand> = {
  help: {
    summary: 'this list',
    ownerOnly: false,
    async run({ context, user, channelId }) {
      const lines = Object.entries(DISCORD_COMMANDS)
        .filter(([, spec]) => !spec.ownerOnly || user.role === 'owner')
        .map(([name, spec]) => `/${name} — ${spec.summary}`);
      await say(context, channelId, ['Write to talk to your agent. Commands:', ...lines].join('\n'));
    },
  },
  agents: {
    summary: 'list the agents (press one to talk to it)',
    ownerOnly: false,
    async run({ context, user, channelId }) {
      const agents = context.mesh.agents();
      if (agents.length === 0) return say(context, channelId, 'No agents are running.');
      const active = activeAgentOf(context, user);
      const lines = agents.map(
        (agent) => `${agent.name === active ? '▸' : '•'} ${agent.name} (${agent.state})`,
      );
      const buttons = agents.slice(0, 25).map((agent) => ({
        label: agent.name,
        customId: `${USE_AGENT_BUTTON_PREFIX}${agent.name}`.slice(0, 100),
        style: 'secondary' as const,
      }));
      await say(context, channelId, lines.join('\n'), { buttons });
    },
  },
  use: {
    summary: 'talk to another agent: /use NAME',
    ownerOnly: false,
    async run({ context, user, channelId, args }) {
      await say(context, channelId, switchAgent(context, user, args));
    },
  },
  status: {
    summary: 'your agent and its state',
    ownerOnly: false,
    async run(call) {
      const { context, user, channelId } = call;
      const agent = activeAgentOf(context, user);
      const info = context.mesh.agents().find((candidate) => candidate.name === agent);
      await say(
        context,
        channelId,
        [
          `You are ${user.role === 'owner' ? 'the owner' : 'an allowed user'}.`,
          agent ? `Talking to ${agent} (${info?.state ?? 'unknown'}).` : 'No agents are running.',
          ...(agent ? [`Conversation: ${conversationOf(call, agent)}`] : []),
        ].join('\n'),
      );
    },
  },
  steer: {
    summary: 'hand a message to the running turn: /steer TEXT',
    ownerOnly: true,
    async run(call) {
      const { context, user, channelId, messageId, args } = call;
      if (!args) return say(context, channelId, 'Usage: /steer TEXT');
      const agent = activeAgentOf(context, user);
      if (!agent) return say(context, channelId, 'No agents are running.');
      context.submit({
        platformId: messageId,
        conversation: channelId,
        sender: user.userId,
        agent,
        text: args,
        replyTo: messageId,
        conversationId: conversationOf(call, agent),
        showUsage: user.debug,
        mode: 'steer',
      });
    },
  },
  broadcast: {
    summary: 'send a message to every agent: /broadcast TEXT',
    ownerOnly: true,
    async run(call) {
      const { context, user, channelId, messageId, args } = call;
      if (!args) return say(context, channelId, 'Usage: /broadcast TEXT');
      const agents = context.mesh.agents();
      if (agents.length === 0) return say(context, channelId, 'No agents are running.');
      for (const agent of agents) {
        // One spooled message per agent: each is answered once, in its own reply.
        context.submit({
          platformId: `${messageId}:${agent.name}`,
          conversation: channelId,
          sender: user.userId,
          agent: agent.name,
          text: args,
          replyTo: messageId,
          header: `**${agent.name}**`,
          conversationId: conversationOf(call, agent.name),
          showUsage: user.debug,
        });
      }
    },
  },
  reset: {
    summary: 'start a new conversation with your agent (in a server channel: for everyone there)',
    ownerOnly: true,
    async run(call) {
      const { context, user, channelId } = call;
      const agent = activeAgentOf(context, user);
      if (!agent) return say(context, channelId, 'No agents are running.');
      context.users.resetConversation(discordConversationId(call, user.userId), agent);
      await say(context, channelId, `New conversation with ${agent}.`);
    },
  },
  approvals: {
    summary: 'what waits for your approval (tool calls, workflow steps)',
    ownerOnly: true,
    async run({ context, channelId }) {
      const pending = context.mesh.pendingApprovals();
      if (pending.length === 0) return say(context, channelId, 'Nothing waits for approval.');
      for (const approval of pending) await offerApproval(context, channelId, approval);
    },
  },
  approve: decisionCommand('approve'),
  reject: decisionCommand('reject'),
  paired: {
    summary: 'list paired users',
    ownerOnly: true,
    async run({ context, channelId }) {
      const lines = context.users
        .list()
        .map((paired) => `• ${paired.userId} ${paired.name} (${paired.role})`);
      await say(context, channelId, lines.join('\n'));
    },
  },
  revoke: {
    summary: 'remove a paired user: /revoke USER_ID',
    ownerOnly: true,
    async run({ context, user, channelId, args }) {
      const userId = args.trim();
      if (!/^\d{1,25}$/.test(userId))
        return say(context, channelId, 'Usage: /revoke USER_ID (a Discord user id)');
      if (userId === user.userId) return say(context, channelId, 'The owner cannot revoke themselves here.');
      const removed = context.users.revoke(userId);
      await say(context, channelId, removed ? `${userId} is no longer paired.` : `${userId} was not paired.`);
    },
  },
};
