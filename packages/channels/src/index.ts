export {
  SLACK_EDIT_INTERVAL_MS,
  SlackChannel,
  type SlackChannelOptions,
  type SlackChannelStatus,
} from './slack/slack-channel.js';
export { SLACK_FEATURE, SLACK_MIGRATIONS } from './slack/slack-migrations.js';
export { SlackPairing } from './slack/slack-pairing.js';
export { type SlackPairedUser, SlackUsers } from './slack/slack-users.js';
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
