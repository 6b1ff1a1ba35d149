export type {
  FakeTelegramBotMessage,
  FakeTelegramCall,
  FakeTelegramChat,
  FakeTelegramFault,
  FakeTelegramUpdate,
  FakeTelegramUser,
} from './bot-api-types.js';
export { TELEGRAM_MESSAGE_LIMIT } from './bot-messages.js';
export type { UpdateFilter } from './fake-telegram-methods.js';
export { type FakeTelegram, type FakeTelegramOptions, startFakeTelegram } from './fake-telegram-server.js';
export type { FakeTelegramSender } from './incoming-messages.js';
export { type ParsedTelegramHtml, parseTelegramHtml } from './telegram-html.js';
export type { FakeWebhook, FakeWebhookDelivery } from './webhook-delivery.js';
