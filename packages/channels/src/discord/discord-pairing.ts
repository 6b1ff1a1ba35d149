import type { Clock } from '@openlegion/infra/clock';
import { type Database, transaction } from '@openlegion/infra/sqlite';
import {
  generatePairingCode,
  hashPairingCode,
  matchesAnyHash,
  normalizePairingCode,
} from '../telegram/pairing-code.js';
import {
  MAX_PENDING_PAIRING_CODES,
  PAIRING_ATTEMPT_LIMIT,
  PAIRING_ATTEMPT_WINDOW_MS,
  PAIRING_CODE_TTL_MS,
  type PairingCode,
} from '../telegram/telegram-pairing.js';
import type { DiscordUser, DiscordUsers } from './discord-users.js';

/** How a `/pair` went (as Telegram's: only the first refusal of a lockout is answered). */
export type DiscordPairingOutcome =
  | { kind: 'paired'; user: DiscordUser }
  | { kind: 'already-paired'; user: DiscordUser }
  | { kind: 'invalid' }
  | { kind: 'rate-limited'; first: boolean; retryAfterMs: number };

/**
 * Pairing codes and attempts in mesh.db, with Telegram's rules: single use, an hour to live, at
 * most three pending, five tries per sender per ten minutes (refused tries count too).
 */
export class DiscordPairing {
  constructor(
    private readonly db: Database,
    private readonly users: DiscordUsers,
    private readonly clock: Clock,
  ) {}

  createCode(): PairingCode {
    const now = this.clock.now();
    const code = generatePairingCode();
    transaction(this.db, () => {
      this.#dropExpired(now);
      this.db
        .prepare('INSERT INTO discord_pairing_codes (code_hash, created_at, expires_at) VALUES (?, ?, ?)')
        .run(hashPairingCode(code), now, now + PAIRING_CODE_TTL_MS);
      this.db
        .prepare(
          `DELETE FROM discord_pairing_codes WHERE code_hash NOT IN
           (SELECT code_hash FROM discord_pairing_codes ORDER BY created_at DESC, rowid DESC LIMIT ?)`,
        )
        .run(MAX_PENDING_PAIRING_CODES);
    });
    return { code, expiresAt: now + PAIRING_CODE_TTL_MS };
  }

  isPending(code: string): boolean {
    const row = this.db
      .prepare<[Buffer, number], { n: number }>(
        'SELECT COUNT(*) AS n FROM discord_pairing_codes WHERE code_hash = ? AND expires_at > ?',
      )
      .get(hashPairingCode(code), this.clock.now());
    return (row?.n ?? 0) > 0;
  }

  /** A user sent `/pair <typed>` in a DM. */
  redeem(userId: string, name: string, typed: string): DiscordPairingOutcome {
    const now = this.clock.now();
    return transaction(this.db, (): DiscordPairingOutcome => {
      const existing = this.users.get(userId);
      if (existing) return { kind: 'already-paired', user: existing };
      this.db
        .prepare('DELETE FROM discord_pairing_attempts WHERE at <= ?')
        .run(now - PAIRING_ATTEMPT_WINDOW_MS);
      const attempts = this.db
        .prepare<[string], { n: number; oldest: number | null }>(
          'SELECT COUNT(*) AS n, MIN(at) AS oldest FROM discord_pairing_attempts WHERE user_id = ?',
        )
        .get(userId) ?? { n: 0, oldest: null };
      this.db.prepare('INSERT INTO discord_pairing_attempts (user_id, at) VALUES (?, ?)').run(userId, now);
      if (attempts.n >= PAIRING_ATTEMPT_LIMIT) {
        const retryAfterMs = Math.max(0, (attempts.oldest ?? now) + PAIRING_ATTEMPT_WINDOW_MS - now);
        return { kind: 'rate-limited', first: attempts.n === PAIRING_ATTEMPT_LIMIT, retryAfterMs };
      }
      this.#dropExpired(now);
      const code = normalizePairingCode(typed);
      const stored = this.db
        .prepare<[], { code_hash: Buffer }>('SELECT code_hash FROM discord_pairing_codes')
        .all()
        .map((row) => row.code_hash);
      // Hash and compare even a malformed code, so a wrong length costs the same time as a wrong code.
      const matched = matchesAnyHash(hashPairingCode(code ?? typed), stored);
      if (!code || !matched) return { kind: 'invalid' };
      this.db.prepare('DELETE FROM discord_pairing_codes WHERE code_hash = ?').run(matched);
      this.db.prepare('DELETE FROM discord_pairing_attempts WHERE user_id = ?').run(userId);
      return { kind: 'paired', user: this.users.pair(userId, name, now) };
    });
  }

  #dropExpired(now: number): void {
    this.db.prepare('DELETE FROM discord_pairing_codes WHERE expires_at <= ?').run(now);
  }
}
