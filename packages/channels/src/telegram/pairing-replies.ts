import type { IncomingUpdate } from './incoming-update.js';
import { say, type TelegramContext } from './telegram-context.js';

type MessageUpdate = Extract<IncomingUpdate, { kind: 'message' }>;

export const HOW_TO_PAIR =
  'This bot answers paired users only\\. Ask its owner for a pairing code \\(`openlegion telegram pair`\\), then send `/pair CODE` here\\.';

/** `/pair CODE` from someone not yet paired (private chats only: a code in a group is seen by all). */
export async function handlePair(
  context: TelegramContext,
  update: MessageUpdate,
  code: string,
): Promise<void> {
  const { chatId, from } = update;
  if (update.inGroup) return say(context, chatId, 'Pair in a private chat with me, not in a group\\.');
  if (!code) return say(context, chatId, 'Usage: `/pair CODE` with the code the owner gave you\\.');
  const outcome = context.pairing.redeem(from.id, from.name, code);
  const log = context.logger.child({ user: from.id });
  switch (outcome.kind) {
    case 'paired':
      log.info({ role: outcome.user.role }, 'telegram user paired');
      return say(
        context,
        chatId,
        outcome.user.role === 'owner'
          ? 'Paired: you are the owner of this bot\\. Write to talk to your agent; /help lists the commands\\.'
          : 'Paired\\. Write to talk to your agent; /help lists the commands\\.',
      );
    case 'already-paired':
      return say(context, chatId, 'You are already paired\\.');
    case 'invalid':
      log.warn('telegram pairing code refused');
      return say(context, chatId, 'That code is not valid \\(wrong, used or expired\\)\\.');
    case 'rate-limited': {
      log.warn('telegram pairing attempts rate-limited');
      if (!outcome.first) return;
      const minutes = Math.max(1, Math.ceil(outcome.retryAfterMs / 60_000));
      return say(context, chatId, `Too many tries\\. Wait ${minutes} minutes before the next one\\.`);
    }
  }
}
