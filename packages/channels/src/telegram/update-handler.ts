import { isAgentDirective } from '@openlegion/protocol';
import { isApprovalButton, pressApprovalButton } from './approvals.js';
import { COMMANDS } from './command-table.js';
import { type IncomingUpdate, parseCommand } from './incoming-update.js';
import { HOW_TO_PAIR, handlePair } from './pairing-replies.js';
import { looksLikeSecret } from './secret-detector.js';
import { activeAgentOf, say, type TelegramContext } from './telegram-context.js';
import { conversationScope } from './telegram-users.js';
import { switchAgent, USE_AGENT_BUTTON_PREFIX } from './user-commands.js';

type MessageUpdate = Extract<IncomingUpdate, { kind: 'message' }>;
type ButtonUpdate = Extract<IncomingUpdate, { kind: 'button' }>;

const SECRET_WARNING =
  'That looks like an API key or token, so it was not sent to the agent\\. Keys never go through chat: set them on the host \\(`openlegion vault set NAME`\\)\\. Delete your message\\.';

/**
 * Act on one update: pairing, commands, or a chat with the user's agent. Returns once the update is
 * taken in; a chat's reply goes on streaming from the delivery core's spool.
 */
export async function handleUpdate(context: TelegramContext, update: IncomingUpdate): Promise<void> {
  if (update.kind === 'message') return handleMessage(context, update);
  if (update.kind === 'button') return handleButton(context, update);
  context.logger.debug({ update: update.updateId, reason: update.reason }, 'telegram update ignored');
}

async function handleMessage(context: TelegramContext, update: MessageUpdate): Promise<void> {
  const { chatId, from, text, messageId } = update;
  if (update.inGroup && !context.allowGroups) {
    context.logger.debug({ chat: chatId }, 'group message ignored: groups are not allowed');
    return;
  }
  const command = parseCommand(text);
  const user = context.users.get(from.id);
  if (command?.name === 'pair') {
    if (user) return say(context, chatId, 'You are already paired\\.');
    return handlePair(context, update, command.args);
  }
  if (!user) {
    // One answer per person, then silence: an unpaired stranger cannot make the bot talk.
    if (context.users.firstTimeUnpaired(from.id)) await say(context, chatId, HOW_TO_PAIR);
    return;
  }
  if (looksLikeSecret(text)) {
    context.logger.warn({ user: from.id }, 'message that looks like a key refused');
    return say(context, chatId, SECRET_WARNING, { replyTo: messageId });
  }
  // An agent's own directive (/compact, /model fast, ...) is the message it starts: the agent reads it.
  if (command && !COMMANDS[command.name] && !isAgentDirective(command.name)) {
    return say(context, chatId, 'Unknown command\\. /help lists them\\.');
  }
  const spec = command ? COMMANDS[command.name] : undefined;
  if (command && spec) {
    if (spec.ownerOnly && user.role !== 'owner') {
      return say(context, chatId, `Only the owner can use /${command.name}\\.`);
    }
    return spec.run({
      context,
      user,
      chatId,
      inGroup: update.inGroup,
      messageId,
      args: command.args,
      updateId: update.updateId,
    });
  }
  if (text === '') return;
  const agent = activeAgentOf(context, user);
  if (!agent) return say(context, chatId, 'No agents are running\\.');
  // Spooled under its update id: a replay (after a restart or from Telegram) is recognised there.
  context.delivery.submit({
    channel: 'telegram',
    platformId: String(update.updateId),
    conversation: String(chatId),
    sender: String(from.id),
    agent,
    text,
    ...(update.inGroup ? { replyTo: String(messageId) } : {}),
    conversationId: context.users.conversationId(conversationScope(update, user.userId), agent),
    showUsage: user.debug,
    receivedAt: context.clock.now(),
  });
}

async function handleButton(context: TelegramContext, update: ButtonUpdate): Promise<void> {
  const user = context.users.get(update.from.id);
  if (!user) return context.api.answerCallbackQuery(update.callbackId, 'You are not paired.');
  if (isApprovalButton(update.data)) {
    const answer = await pressApprovalButton(context, user, update.data);
    return context.api.answerCallbackQuery(update.callbackId, answer);
  }
  if (!update.data.startsWith(USE_AGENT_BUTTON_PREFIX))
    return context.api.answerCallbackQuery(update.callbackId);
  const answer = switchAgent(context, user, update.data.slice(USE_AGENT_BUTTON_PREFIX.length));
  await context.api.answerCallbackQuery(update.callbackId, answer.replace(/\\(.)/g, '$1'));
}
