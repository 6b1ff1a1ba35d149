import { FakeClock } from '@openlegion/infra/clock';
import { beforeEach, describe, expect, it } from 'vitest';
import { openTelegramDatabase } from '../../test/telegram-database.js';
import { PAIRING_CODE_ALPHABET } from './pairing-code.js';
import {
  MAX_PENDING_PAIRING_CODES,
  PAIRING_ATTEMPT_WINDOW_MS,
  PAIRING_CODE_TTL_MS,
  TelegramPairing,
} from './telegram-pairing.js';
import { TelegramUsers } from './telegram-users.js';

let clock: FakeClock;
let users: TelegramUsers;
let pairing: TelegramPairing;

beforeEach(() => {
  clock = new FakeClock(Date.parse('2026-03-01T10:00:00Z'));
  const db = openTelegramDatabase();
  users = new TelegramUsers(db);
  pairing = new TelegramPairing(db, users, clock);
});

describe('TelegramPairing', () => {
  it('makes 8-character codes from the unambiguous alphabet, different each time', () => {
    const codes = Array.from({ length: 20 }, () => pairing.createCode().code);
    for (const code of codes) {
      expect(code).toMatch(/^[A-Z2-9]{8}$/);
      expect([...code].every((char) => PAIRING_CODE_ALPHABET.includes(char))).toBe(true);
      expect(code).not.toMatch(/[01OIL]/);
    }
    expect(new Set(codes).size).toBe(20);
  });

  it('pairs the first user as owner and the next as allowed, each code once', () => {
    const first = pairing.createCode();
    const second = pairing.createCode();
    expect(pairing.redeem(1, 'Ada', first.code)).toMatchObject({ kind: 'paired', user: { role: 'owner' } });
    expect(pairing.redeem(2, 'Bob', first.code)).toEqual({ kind: 'invalid' });
    expect(pairing.redeem(2, 'Bob', second.code.toLowerCase())).toMatchObject({
      kind: 'paired',
      user: { userId: 2, role: 'allowed', name: 'Bob' },
    });
    expect(users.owner()?.userId).toBe(1);
  });

  it('refuses an expired code', async () => {
    const { code } = pairing.createCode();
    await clock.advance(PAIRING_CODE_TTL_MS);
    expect(pairing.redeem(1, 'Ada', code)).toEqual({ kind: 'invalid' });
    expect(users.owner()).toBeUndefined();
  });

  it('keeps at most three pending codes, dropping the oldest', async () => {
    const oldest = pairing.createCode();
    for (let index = 0; index < MAX_PENDING_PAIRING_CODES; index++) {
      await clock.advance(1);
      pairing.createCode();
    }
    expect(pairing.pendingCount()).toBe(MAX_PENDING_PAIRING_CODES);
    expect(pairing.isPending(oldest.code)).toBe(false);
    expect(pairing.redeem(1, 'Ada', oldest.code)).toEqual({ kind: 'invalid' });
  });

  it('locks a sender out after five tries in ten minutes, even with the right code, and answers the lockout once', async () => {
    const { code } = pairing.createCode();
    for (let index = 0; index < 5; index++) expect(pairing.redeem(9, 'Eve', 'WRONGCDE').kind).toBe('invalid');
    expect(pairing.redeem(9, 'Eve', code)).toMatchObject({ kind: 'rate-limited', first: true });
    expect(pairing.redeem(9, 'Eve', code)).toMatchObject({ kind: 'rate-limited', first: false });
    expect(users.get(9)).toBeUndefined();
    // Another sender is not locked out by Eve's flood.
    expect(pairing.redeem(1, 'Ada', code)).toMatchObject({ kind: 'paired' });
  });

  it('lets a locked-out sender try again once the window has passed without tries', async () => {
    const { code } = pairing.createCode();
    for (let index = 0; index < 6; index++) pairing.redeem(9, 'Eve', 'WRONGCDE');
    await clock.advance(PAIRING_ATTEMPT_WINDOW_MS + 1);
    expect(pairing.redeem(9, 'Eve', code)).toMatchObject({ kind: 'paired', user: { role: 'owner' } });
  });

  it('says already paired to a paired user without using up a code', () => {
    const { code } = pairing.createCode();
    pairing.redeem(1, 'Ada', code);
    const other = pairing.createCode();
    expect(pairing.redeem(1, 'Ada', other.code).kind).toBe('already-paired');
    expect(pairing.isPending(other.code)).toBe(true);
  });
});
