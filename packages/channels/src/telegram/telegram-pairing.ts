import type { Clock } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import { ChannelPairing, type PairingOutcome as CorePairingOutcome } from '../core/channel-pairing.js';
import type { PairedUser, TelegramUsers } from './telegram-users.js';

export {
  MAX_PENDING_PAIRING_CODES,
  PAIRING_ATTEMPT_LIMIT,
  PAIRING_ATTEMPT_WINDOW_MS,
  PAIRING_CODE_TTL_MS,
  type PairingCode,
} from '../core/channel-pairing.js';

/** How a Telegram `/pair` went. */
export type PairingOutcome = CorePairingOutcome<PairedUser>;

/**
 * The core pairing ({@link ChannelPairing}) on Telegram's own tables (`telegram_pairing_codes`,
 * `telegram_pairing_attempts`), which predate the shared ones: codes and pairings made before
 * keep working, and `openlegion telegram pair` writes where the channel reads.
 */
export class TelegramPairing extends ChannelPairing<number, PairedUser> {
  constructor(db: Database, users: TelegramUsers, clock: Clock) {
    super(
      db,
      users,
      clock,
      { codes: 'telegram_pairing_codes', attempts: 'telegram_pairing_attempts' },
      'telegram',
    );
  }
}
