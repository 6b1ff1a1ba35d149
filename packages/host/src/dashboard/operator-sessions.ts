import type { Clock } from '@openlegion/infra/clock';
import { digestMatches, generateToken, tokenDigest } from '@openlegion/infra/http';

/** A signed-in browser: its CSRF token and when the sign-in ends. */
export interface OperatorSession {
  readonly csrf: string;
  readonly expiresAt: number;
}

/**
 * Sessions a browser gets for the operator token; many browsers and tabs may share one operator,
 * and a leak of one session is ended by signing it out (or by the host's restart: sessions live in
 * memory only, so a restart signs every browser out). Held by the digest of the cookie's value, so
 * the map holds nothing a reader of the host's memory could replay as a cookie.
 */
export class OperatorSessions {
  readonly #sessions = new Map<string, OperatorSession>();

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly ttlMs: number,
    /** Sessions kept at once; signing in past it ends the oldest, so memory stays bounded. */
    private readonly max = 64,
  ) {}

  /** A new session: the cookie value (secret, HttpOnly) and its CSRF token (given to the page). */
  open(): { id: string; session: OperatorSession } {
    this.#prune();
    while (this.#sessions.size >= this.max) {
      const oldest = this.#sessions.keys().next();
      if (oldest.done) break;
      this.#sessions.delete(oldest.value);
    }
    const id = generateToken();
    const session = { csrf: generateToken(), expiresAt: this.clock.now() + this.ttlMs };
    this.#sessions.set(digestKey(id), session);
    return { id, session };
  }

  /** The live session of a cookie value, or undefined (unknown, signed out or expired). */
  find(id: string): OperatorSession | undefined {
    const key = digestKey(id);
    const session = this.#sessions.get(key);
    if (!session) return undefined;
    if (session.expiresAt <= this.clock.now()) {
      this.#sessions.delete(key);
      return undefined;
    }
    return session;
  }

  close(id: string): void {
    this.#sessions.delete(digestKey(id));
  }

  #prune(): void {
    const now = this.clock.now();
    for (const [key, session] of this.#sessions) if (session.expiresAt <= now) this.#sessions.delete(key);
  }
}

/** Whether `presented` is the session's CSRF token, in constant time. */
export function csrfMatches(session: OperatorSession, presented: string): boolean {
  return digestMatches(tokenDigest(presented), tokenDigest(session.csrf));
}

function digestKey(id: string): string {
  return tokenDigest(id).toString('hex');
}
