import { escapeMarkdown } from '../core/reply-lines.js';
import { activeAgentOf, say } from './telegram-context.js';
import { type ConversationScope, conversationScope } from './telegram-users.js';
import type { CommandCall, CommandSpec } from './user-commands.js';

function parseUserId(args: string): number | undefined {
  const id = Number(args.trim());
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** The agent and conversation a command works on, or why there is none. */
function target(call: CommandCall): { agent: string; conversationId: string } | undefined {
  const agent = activeAgentOf(call.context, call.user);
  return agent
    ? { agent, conversationId: call.context.users.conversationId(scopeOf(call), agent) }
    : undefined;
}

function scopeOf(call: CommandCall): ConversationScope {
  return conversationScope(call, call.user.userId);
}

/** `/allow`, `/revoke`, `/paired`, `/steer`, `/broadcast`, `/reset`, `/debug`: the owner's only. */
export const OWNER_COMMANDS: Record<string, CommandSpec> = {
  allow: {
    summary: 'let a Telegram user in without a code: /allow USER_ID',
    ownerOnly: true,
    async run({ context, chatId, args }) {
      const userId = parseUserId(args);
      if (userId === undefined) return say(context, chatId, 'Usage: /allow USER\\_ID \\(a number\\)');
      const user = context.users.pair(userId, `user ${userId}`, context.clock.now());
      await say(context, chatId, `${userId} is ${user.role === 'owner' ? 'the owner' : 'allowed'}\\.`);
    },
  },
  revoke: {
    summary: 'remove a paired user: /revoke USER_ID',
    ownerOnly: true,
    async run({ context, user, chatId, args }) {
      const userId = parseUserId(args);
      if (userId === undefined) return say(context, chatId, 'Usage: /revoke USER\\_ID \\(a number\\)');
      if (userId === user.userId) {
        return say(
          context,
          chatId,
          'The owner cannot revoke themselves here; use `openlegion telegram revoke`\\.',
        );
      }
      const removed = context.users.revoke(userId);
      await say(
        context,
        chatId,
        removed ? `${userId} is no longer paired\\.` : `${userId} was not paired\\.`,
      );
    },
  },
  paired: {
    summary: 'list paired users',
    ownerOnly: true,
    async run({ context, chatId }) {
      const lines = context.users
        .list()
        .map((paired) => `• ${paired.userId} ${escapeMarkdown(paired.name)} \\(${paired.role}\\)`);
      await say(context, chatId, lines.join('\n'));
    },
  },
  steer: {
    summary: 'hand a message to the running turn: /steer TEXT',
    ownerOnly: true,
    async run(call) {
      const { context, user, chatId, messageId, args } = call;
      const to = target(call);
      if (!args) return say(context, chatId, 'Usage: /steer TEXT');
      if (!to) return say(context, chatId, 'No agents are running\\.');
      context.delivery.submit({
        channel: 'telegram',
        platformId: String(call.updateId),
        conversation: String(chatId),
        sender: String(user.userId),
        agent: to.agent,
        text: args,
        replyTo: String(messageId),
        conversationId: to.conversationId,
        mode: 'steer',
        showUsage: user.debug,
        receivedAt: context.clock.now(),
      });
    },
  },
  broadcast: {
    summary: 'send a message to every agent: /broadcast TEXT',
    ownerOnly: true,
    async run(call) {
      const { context, user, chatId, messageId, args, updateId } = call;
      if (!args) return say(context, chatId, 'Usage: /broadcast TEXT');
      const agents = context.mesh.agents();
      if (agents.length === 0) return say(context, chatId, 'No agents are running\\.');
      for (const agent of agents) {
        // One spooled message per agent, each under its own id: `<update>-<agent>`.
        context.delivery.submit({
          channel: 'telegram',
          platformId: `${updateId}-${agent.name}`,
          conversation: String(chatId),
          sender: String(user.userId),
          agent: agent.name,
          text: args,
          replyTo: String(messageId),
          header: `*${escapeMarkdown(agent.name)}*`,
          conversationId: context.users.conversationId(scopeOf(call), agent.name),
          showUsage: user.debug,
          receivedAt: context.clock.now(),
        });
      }
    },
  },
  reset: {
    summary: 'start a new conversation with your agent',
    ownerOnly: true,
    async run(call) {
      const to = target(call);
      if (!to) return say(call.context, call.chatId, 'No agents are running\\.');
      call.context.users.resetConversation(scopeOf(call), to.agent);
      await say(call.context, call.chatId, `New conversation with ${escapeMarkdown(to.agent)}\\.`);
    },
  },
  debug: {
    summary: 'show tokens and notices under replies (on/off)',
    ownerOnly: true,
    async run({ context, user, chatId, args }) {
      const on = args === '' ? !user.debug : /^(on|1|true|yes)$/i.test(args);
      context.users.setDebug(user.userId, on);
      await say(context, chatId, `Debug is ${on ? 'on' : 'off'}\\.`);
    },
  },
};
