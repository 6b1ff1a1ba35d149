export { TELEGRAM_FEATURE, TELEGRAM_MIGRATIONS } from './telegram/telegram-migrations.js';
export { type PairingCode, type PairingOutcome, TelegramPairing } from './telegram/telegram-pairing.js';
export { type PairedUser, type TelegramRole, TelegramUsers } from './telegram/telegram-users.js';
