import type { Clock } from '@openlegion/infra/clock';
import { type Database, transaction } from '@openlegion/infra/sqlite';
import {
  generatePairingCode,
  hashPairingCode,
  matchesAnyHash,
  normalizePairingCode,
} from './pairing-code.js';

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
export type PairingOutcome<User> =
  | { kind: 'paired'; user: User }
  | { kind: 'already-paired'; user: User }
  | { kind: 'invalid' }
  | { kind: 'rate-limited'; first: boolean; retryAfterMs: number };

/** The owner model a pairing writes to: who is paired, and pairing someone (owner first). */
export interface PairingUsers<Id, User> {
  get(userId: Id): User | undefined;
  /** Pair a user (the owner when none is); runs inside the pairing's transaction. */
  pair(userId: Id, name: string, now: number): User;
}

/**
 * Where a channel's codes and attempts live: the shared `channel_pairing_*` tables keyed by
 * channel, or (Telegram, from before the shared tables) tables of its own without that column.
 */
export interface PairingTables {
  codes: string;
  attempts: string;
  /** The `channel` column's value; absent for tables of one channel only. */
  channel?: string;
}

/** The shared tables, for `channel`. */
export const sharedPairingTables = (channel: string): PairingTables => ({
  codes: 'channel_pairing_codes',
  attempts: 'channel_pairing_attempts',
  channel,
});

/**
 * Pairing codes and attempts in mesh.db, the same for every platform. A code is single use,
 * expires after an hour, and at most {@link MAX_PENDING_PAIRING_CODES} are pending (a new one
 * replaces the oldest). A sender gets {@link PAIRING_ATTEMPT_LIMIT} tries per
 * {@link PAIRING_ATTEMPT_WINDOW_MS}; refused tries count too, so a flood stays locked out for as
 * long as it lasts.
 *
 * @example
 * const users = new ChannelUsers(db, 'discord');
 * const pairing = new ChannelPairing(db, users, clock, sharedPairingTables('discord'), 'discord');
 * const { code } = pairing.createCode(); // print it
 * pairing.redeem('81234', 'ada', typed); // { kind: 'paired', user: { role: 'owner', … } }
 */
export class ChannelPairing<Id extends string | number, User> {
  /** `channel = ? AND ` (or nothing) and its parameter, before every condition. */
  readonly #where: string;
  readonly #scope: string[];

  constructor(
    private readonly db: Database,
    private readonly users: PairingUsers<Id, User>,
    private readonly clock: Clock,
    private readonly tables: PairingTables,
    /** Salts the code hashes (a code made for one platform never pairs on another). */
    private readonly hashSalt = tables.channel ?? 'telegram',
  ) {
    this.#where = tables.channel === undefined ? '' : 'channel = ? AND ';
    this.#scope = tables.channel === undefined ? [] : [tables.channel];
  }

  /** Make a new code (the oldest pending one goes when there would be more than three). */
  createCode(): PairingCode {
    const now = this.clock.now();
    const code = generatePairingCode();
    const { codes } = this.tables;
    transaction(this.db, () => {
      this.#dropExpired(now);
      const columns = this.#scope.length
        ? 'channel, code_hash, created_at, expires_at'
        : 'code_hash, created_at, expires_at';
      const values = this.#scope.length ? '?, ?, ?, ?' : '?, ?, ?';
      this.db
        .prepare(`INSERT INTO ${codes} (${columns}) VALUES (${values})`)
        .run(...this.#scope, this.#hash(code), now, now + PAIRING_CODE_TTL_MS);
      this.db
        .prepare(
          `DELETE FROM ${codes} WHERE ${this.#where} code_hash NOT IN
           (SELECT code_hash FROM ${codes} WHERE ${this.#where} 1 = 1 ORDER BY created_at DESC, rowid DESC LIMIT ?)`,
        )
        .run(...this.#scope, ...this.#scope, MAX_PENDING_PAIRING_CODES);
    });
    return { code, expiresAt: now + PAIRING_CODE_TTL_MS };
  }

  /** Whether `code` (as created) is still pending. */
  isPending(code: string): boolean {
    const row = this.db
      .prepare<unknown[], { n: number }>(
        `SELECT COUNT(*) AS n FROM ${this.tables.codes} WHERE ${this.#where} code_hash = ? AND expires_at > ?`,
      )
      .get(...this.#scope, this.#hash(code), this.clock.now());
    return (row?.n ?? 0) > 0;
  }

  /** How many codes are pending. */
  pendingCount(): number {
    const row = this.db
      .prepare<unknown[], { n: number }>(
        `SELECT COUNT(*) AS n FROM ${this.tables.codes} WHERE ${this.#where} expires_at > ?`,
      )
      .get(...this.#scope, this.clock.now());
    return row?.n ?? 0;
  }

  /** A user sent `/pair <typed>`. */
  redeem(userId: Id, name: string, typed: string): PairingOutcome<User> {
    const now = this.clock.now();
    const { attempts: table, codes } = this.tables;
    return transaction(this.db, (): PairingOutcome<User> => {
      const existing = this.users.get(userId);
      if (existing) return { kind: 'already-paired', user: existing };
      const since = now - PAIRING_ATTEMPT_WINDOW_MS;
      this.db.prepare(`DELETE FROM ${table} WHERE ${this.#where} at <= ?`).run(...this.#scope, since);
      const attempts = this.db
        .prepare<unknown[], { n: number; oldest: number | null }>(
          `SELECT COUNT(*) AS n, MIN(at) AS oldest FROM ${table} WHERE ${this.#where} user_id = ?`,
        )
        .get(...this.#scope, userId) ?? { n: 0, oldest: null };
      const columns = this.#scope.length ? 'channel, user_id, at' : 'user_id, at';
      const values = this.#scope.length ? '?, ?, ?' : '?, ?';
      this.db
        .prepare(`INSERT INTO ${table} (${columns}) VALUES (${values})`)
        .run(...this.#scope, userId, now);
      if (attempts.n >= PAIRING_ATTEMPT_LIMIT) {
        const retryAfterMs = Math.max(0, (attempts.oldest ?? now) + PAIRING_ATTEMPT_WINDOW_MS - now);
        return { kind: 'rate-limited', first: attempts.n === PAIRING_ATTEMPT_LIMIT, retryAfterMs };
      }
      const matched = this.#match(typed, now);
      if (!matched) return { kind: 'invalid' };
      this.db.prepare(`DELETE FROM ${codes} WHERE ${this.#where} code_hash = ?`).run(...this.#scope, matched);
      this.db.prepare(`DELETE FROM ${table} WHERE ${this.#where} user_id = ?`).run(...this.#scope, userId);
      return { kind: 'paired', user: this.users.pair(userId, name, now) };
    });
  }

  #hash(code: string): Buffer {
    return hashPairingCode(code, this.hashSalt);
  }

  #match(typed: string, now: number): Buffer | undefined {
    this.#dropExpired(now);
    const code = normalizePairingCode(typed);
    const stored = this.db
      .prepare<unknown[], { code_hash: Buffer }>(
        `SELECT code_hash FROM ${this.tables.codes} WHERE ${this.#where} 1 = 1`,
      )
      .all(...this.#scope)
      .map((row) => row.code_hash);
    // Hash and compare even a malformed code, so a wrong length costs the same time as a wrong code.
    const candidate = this.#hash(code ?? typed);
    const match = matchesAnyHash(candidate, stored);
    return code ? match : undefined;
  }

  #dropExpired(now: number): void {
    this.db
      .prepare(`DELETE FROM ${this.tables.codes} WHERE ${this.#where} expires_at <= ?`)
      .run(...this.#scope, now);
  }
}
