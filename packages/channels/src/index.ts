export {
  DiscordChannel,
  type DiscordChannelOptions,
  type DiscordStatus,
} from './discord/discord-channel.js';
export { DISCORD_FEATURE, DISCORD_MIGRATIONS } from './discord/discord-migrations.js';
export { DISCORD_MESSAGE_CHARS, DiscordReplies } from './discord/discord-replies.js';
export { type DiscordUser, DiscordUsers } from './discord/discord-users.js';
export { markdownToTelegramHtml } from './telegram/markdown-to-html.js';
export {
  DEFAULT_POLL_TIMEOUT_SECONDS,
  TelegramChannel,
  type TelegramChannelOptions,
} from './telegram/telegram-channel.js';
export { TELEGRAM_FEATURE, TELEGRAM_MIGRATIONS } from './telegram/telegram-migrations.js';
export { type PairingCode, type PairingOutcome, TelegramPairing } from './telegram/telegram-pairing.js';
export { type PairedUser, type TelegramRole, TelegramUsers } from './telegram/telegram-users.js';
export type { TelegramWebhookOptions } from './telegram/webhook-server.js';
