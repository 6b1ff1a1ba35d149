import type { Clock } from '@openlegion/infra/clock';
import type { ChannelMesh } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { DeliveryDispatcher } from '../core/delivery-dispatcher.js';
import type { BotIdentity } from './incoming-update.js';
import { markdownToTelegramHtml } from './markdown-to-html.js';
import type { InlineKeyboard, TelegramApi } from './telegram-api.js';
import type { TelegramPairing } from './telegram-pairing.js';
import type { PairedUser, TelegramUsers } from './telegram-users.js';

/** What the update handlers work with; one per running channel. */
export interface TelegramContext {
  api: TelegramApi;
  mesh: ChannelMesh;
  users: TelegramUsers;
  pairing: TelegramPairing;
  /** The delivery core: every chat with an agent goes through its spool. */
  delivery: DeliveryDispatcher;
  clock: Clock;
  logger: Logger;
  bot: BotIdentity;
  /** mesh.yaml's `channels.telegram.default_agent`; the first agent when unset. */
  defaultAgent: string | undefined;
  allowGroups: boolean;
}

/** Send a short answer (Markdown, rendered to Telegram HTML). */
export async function say(
  context: TelegramContext,
  chatId: number,
  markdown: string,
  options: { replyTo?: number; keyboard?: InlineKeyboard } = {},
): Promise<void> {
  await context.api.sendMessage(chatId, markdownToTelegramHtml(markdown), {
    parseMode: 'HTML',
    ...(options.replyTo ? { replyTo: options.replyTo } : {}),
    ...(options.keyboard ? { replyMarkup: options.keyboard } : {}),
  });
}

/**
 * The agent a user's messages go to: their choice while that agent exists, else the default
 * agent, else the first agent of the mesh; undefined when the mesh has none.
 */
export function activeAgentOf(context: TelegramContext, user: PairedUser): string | undefined {
  const names = context.mesh.agents().map((agent) => agent.name);
  if (user.activeAgent && names.includes(user.activeAgent)) return user.activeAgent;
  if (context.defaultAgent && names.includes(context.defaultAgent)) return context.defaultAgent;
  return names[0];
}
