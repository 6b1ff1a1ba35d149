import { escapeMarkdown } from '../core/reply-lines.js';
import { activeAgentOf, say, type TelegramContext } from './telegram-context.js';
import { conversationScope, type PairedUser } from './telegram-users.js';

/** Where a command was sent and by whom. */
export interface CommandCall {
  context: TelegramContext;
  user: PairedUser;
  chatId: number;
  /** Whether the command was sent in a group (its conversation is then the group's). */
  inGroup: boolean;
  messageId: number;
  args: string;
  updateId: number;
}

export interface CommandSpec {
  summary: string;
  ownerOnly: boolean;
  run(call: CommandCall): Promise<void>;
}

/** The button data that switches agent (`/agents` shows one button per agent). */
export const USE_AGENT_BUTTON_PREFIX = 'use:';

/** `/agents`, `/use`, `/status`: for every paired user (`/help` is in the command table). */
export const USER_COMMANDS: Record<string, CommandSpec> = {
  agents: {
    summary: 'list the agents (tap one to talk to it)',
    ownerOnly: false,
    async run({ context, user, chatId }) {
      const agents = context.mesh.agents();
      if (agents.length === 0) return say(context, chatId, 'No agents are running.');
      const active = activeAgentOf(context, user);
      const lines = agents.map(
        (agent) => `${agent.name === active ? '▸' : '•'} ${escapeMarkdown(agent.name)} \\(${agent.state}\\)`,
      );
      const keyboard = {
        inline_keyboard: agents.map((agent) => [
          { text: agent.name, callback_data: `${USE_AGENT_BUTTON_PREFIX}${agent.name}` },
        ]),
      };
      await say(context, chatId, lines.join('\n'), { keyboard });
    },
  },
  use: {
    summary: 'talk to another agent: /use NAME',
    ownerOnly: false,
    async run({ context, user, chatId, args }) {
      await say(context, chatId, switchAgent(context, user, args));
    },
  },
  status: {
    summary: 'your agent and its state',
    ownerOnly: false,
    async run({ context, user, chatId, inGroup }) {
      const agent = activeAgentOf(context, user);
      const scope = conversationScope({ chatId, inGroup }, user.userId);
      const info = context.mesh.agents().find((candidate) => candidate.name === agent);
      const lines = [
        `You are ${user.role === 'owner' ? 'the owner' : 'an allowed user'}.`,
        agent
          ? `Talking to ${escapeMarkdown(agent)} \\(${info?.state ?? 'unknown'}\\).`
          : 'No agents are running.',
        `Conversation: ${escapeMarkdown(agent ? context.users.conversationId(scope, agent) : '-')}`,
      ];
      if (user.debug) lines.push('Debug is on.');
      await say(context, chatId, lines.join('\n'));
    },
  },
};

/** Make `name` the user's agent; the answer to show. */
export function switchAgent(context: TelegramContext, user: PairedUser, name: string): string {
  const names = context.mesh.agents().map((agent) => agent.name);
  if (!name) return `Usage: /use NAME\\. Agents: ${escapeMarkdown(names.join(', ') || 'none')}`;
  if (!names.includes(name)) {
    return `There is no agent named ${escapeMarkdown(name)}\\. Agents: ${escapeMarkdown(names.join(', ') || 'none')}`;
  }
  context.users.setActiveAgent(user.userId, name);
  return `Now talking to ${escapeMarkdown(name)}\\.`;
}
