export { CHANNELS_FEATURE, CHANNELS_MIGRATIONS } from './core/channel-migrations.js';
export {
  ChannelPairing,
  MAX_PENDING_PAIRING_CODES,
  PAIRING_ATTEMPT_LIMIT,
  PAIRING_ATTEMPT_WINDOW_MS,
  PAIRING_CODE_TTL_MS,
  type PairingTables,
  type PairingUsers,
  sharedPairingTables,
} from './core/channel-pairing.js';
export { ChannelRegistry, type RegisteredChannel } from './core/channel-registry.js';
export {
  type ChannelState,
  ChannelStatusBoard,
  type ChannelStatusLine,
} from './core/channel-status.js';
export { type ChannelRole, type ChannelUser, ChannelUsers } from './core/channel-users.js';
export type {
  DeadLetter,
  DeliveryState,
  InboundMessage,
  PlatformReplies,
} from './core/delivery-contract.js';
export {
  conversationIdOf,
  DELIVERY_MAX_ATTEMPTS,
  DeliveryDispatcher,
  type DeliveryDispatcherOptions,
  deliveryBackoffMs,
  REDIRECTING_NOTE,
  whyNotStarted,
} from './core/delivery-dispatcher.js';
export { DeliverySpool, type SentPart, type SpooledMessage } from './core/delivery-spool.js';
export { EDIT_INTERVAL_MS, EditPacer } from './core/edit-pacer.js';
export { escapeMarkdown } from './core/reply-lines.js';
export { ReplyStream, type ReplyStreamOptions } from './core/reply-stream.js';
export { splitReply } from './core/split-reply.js';
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
