import type { Clock } from '@openlegion/infra/clock';
import { type Database, transaction } from '@openlegion/infra/sqlite';
import {
  generatePairingCode,
  hashPairingCode,
  matchesAnyHash,
  normalizePairingCode,
} from './pairing-code.js';
import type { PairedUser, TelegramUsers } from './telegram-users.js';

export const PAIRING_CODE_TTL_MS = 60 * 60 * 1000;
export const MAX_PENDING_PAIRING_CODES = 3;
export const PAIRING_ATTEMPT_LIMIT = 5;
export const PAIRING_ATTEMPT_WINDOW_MS = 10 * 60 * 1000;

/** A code to give to the person who should pair, and when it stops working. */
export interface PairingCode {
  code: string;
  expiresAt: number;
}

/**
 * How a `/pair` went. `rate-limited` carries `first`: only the first refusal in a lockout is
 * answered, so a flood gets one reply, not one per message.
 */
export type PairingOutcome =
  | { kind: 'paired'; user: PairedUser }
  | { kind: 'already-paired'; user: PairedUser }
  | { kind: 'invalid' }
  | { kind: 'rate-limited'; first: boolean; retryAfterMs: number };

/**
 * Pairing codes and attempts in mesh.db. A code is single use, expires after an hour, and at most
 * {@link MAX_PENDING_PAIRING_CODES} are pending (a new one replaces the oldest). A sender gets
 * {@link PAIRING_ATTEMPT_LIMIT} tries per {@link PAIRING_ATTEMPT_WINDOW_MS}; refused tries count
 * too, so a flood stays locked out for as long as it lasts.
 */
export class TelegramPairing {
  constructor(
    private readonly db: Database,
    private readonly users: TelegramUsers,
    private readonly clock: Clock,
  ) {}

  /** Make a new code (the oldest pending one goes when there would be more than three). */
  createCode(): PairingCode {
    const now = this.clock.now();
    const code = generatePairingCode();
    transaction(this.db, () => {
      this.#dropExpired(now);
      this.db
        .prepare('INSERT INTO telegram_pairing_codes (code_hash, created_at, expires_at) VALUES (?, ?, ?)')
        .run(hashPairingCode(code), now, now + PAIRING_CODE_TTL_MS);
      this.db
        .prepare(
          `DELETE FROM telegram_pairing_codes WHERE code_hash NOT IN
           (SELECT code_hash FROM telegram_pairing_codes ORDER BY created_at DESC, rowid DESC LIMIT ?)`,
        )
        .run(MAX_PENDING_PAIRING_CODES);
    });
    return { code, expiresAt: now + PAIRING_CODE_TTL_MS };
  }

  /** Whether `code` (as created) is still pending. */
  isPending(code: string): boolean {
    const row = this.db
      .prepare<[Buffer, number], { n: number }>(
        'SELECT COUNT(*) AS n FROM telegram_pairing_codes WHERE code_hash = ? AND expires_at > ?',
      )
      .get(hashPairingCode(code), this.clock.now());
    return (row?.n ?? 0) > 0;
  }

  /** How many codes are pending. */
  pendingCount(): number {
    const row = this.db
      .prepare<[number], { n: number }>(
        'SELECT COUNT(*) AS n FROM telegram_pairing_codes WHERE expires_at > ?',
      )
      .get(this.clock.now());
    return row?.n ?? 0;
  }

  /** A user sent `/pair <typed>`. */
  redeem(userId: number, name: string, typed: string): PairingOutcome {
    const now = this.clock.now();
    return transaction(this.db, (): PairingOutcome => {
      const existing = this.users.get(userId);
      if (existing) return { kind: 'already-paired', user: existing };
      const since = now - PAIRING_ATTEMPT_WINDOW_MS;
      this.db.prepare('DELETE FROM telegram_pairing_attempts WHERE at <= ?').run(since);
      const attempts = this.db
        .prepare<[number], { n: number; oldest: number | null }>(
          'SELECT COUNT(*) AS n, MIN(at) AS oldest FROM telegram_pairing_attempts WHERE user_id = ?',
        )
        .get(userId) ?? { n: 0, oldest: null };
      this.db.prepare('INSERT INTO telegram_pairing_attempts (user_id, at) VALUES (?, ?)').run(userId, now);
      if (attempts.n >= PAIRING_ATTEMPT_LIMIT) {
        const retryAfterMs = Math.max(0, (attempts.oldest ?? now) + PAIRING_ATTEMPT_WINDOW_MS - now);
        return { kind: 'rate-limited', first: attempts.n === PAIRING_ATTEMPT_LIMIT, retryAfterMs };
      }
      const matched = this.#match(typed, now);
      if (!matched) return { kind: 'invalid' };
      this.db.prepare('DELETE FROM telegram_pairing_codes WHERE code_hash = ?').run(matched);
      this.db.prepare('DELETE FROM telegram_pairing_attempts WHERE user_id = ?').run(userId);
      return { kind: 'paired', user: this.users.pair(userId, name, now) };
    });
  }

  #match(typed: string, now: number): Buffer | undefined {
    this.#dropExpired(now);
    const code = normalizePairingCode(typed);
    const stored = this.db
      .prepare<[], { code_hash: Buffer }>('SELECT code_hash FROM telegram_pairing_codes')
      .all()
      .map((row) => row.code_hash);
    // Hash and compare even a malformed code, so a wrong length costs the same time as a wrong code.
    const candidate = hashPairingCode(code ?? typed);
    const match = matchesAnyHash(candidate, stored);
    return code ? match : undefined;
  }

  #dropExpired(now: number): void {
    this.db.prepare('DELETE FROM telegram_pairing_codes WHERE expires_at <= ?').run(now);
  }
}
