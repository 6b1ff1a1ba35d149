import { escapeMarkdown } from '../core/reply-lines.js';
import { APPROVAL_COMMANDS } from './approvals.js';
import { OWNER_COMMANDS } from './owner-commands.js';
import { say } from './telegram-context.js';
import type { PairedUser } from './telegram-users.js';
import { type CommandSpec, USER_COMMANDS } from './user-commands.js';

const HELP: CommandSpec = {
  summary: 'this list',
  ownerOnly: false,
  async run({ context, user, chatId }) {
    const lines = Object.entries(commandsFor(user)).map(
      ([name, spec]) => `/${escapeMarkdown(name)} — ${escapeMarkdown(spec.summary)}`,
    );
    await say(context, chatId, ['Write to talk to your agent\\. Commands:', ...lines].join('\n'));
  },
};

/** Every command by name. */
export const COMMANDS: Record<string, CommandSpec> = {
  ...USER_COMMANDS,
  help: HELP,
  ...OWNER_COMMANDS,
  ...APPROVAL_COMMANDS,
};

/** The commands `user` may run (the owner's only for the owner). */
export function commandsFor(user: PairedUser): Record<string, CommandSpec> {
  return Object.fromEntries(
    Object.entries(COMMANDS).filter(([, spec]) => !spec.ownerOnly || user.role === 'owner'),
  );
}
