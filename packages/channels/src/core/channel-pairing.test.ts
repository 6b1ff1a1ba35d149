import { FakeClock } from '@openlegion/infra/clock';
import { type Database, openDatabase } from '@openlegion/infra/sqlite';
import { beforeEach, describe, expect, it } from 'vitest';
import { openTelegramDatabase } from '../../test/telegram-database.js';
import { TelegramPairing } from '../telegram/telegram-pairing.js';
import { TelegramUsers } from '../telegram/telegram-users.js';
import {
  ChannelPairing,
  PAIRING_ATTEMPT_LIMIT,
  PAIRING_ATTEMPT_WINDOW_MS,
  PAIRING_CODE_TTL_MS,
  sharedPairingTables,
} from './channel-pairing.js';
import { type ChannelUser, ChannelUsers } from './channel-users.js';
import { DeliverySpool } from './delivery-spool.js';

let clock: FakeClock;
let db: Database;

const pairingFor = (channel: 'discord' | 'slack') => {
  const users = new ChannelUsers(db, channel);
  return {
    users,
    pairing: new ChannelPairing<string, ChannelUser>(db, users, clock, sharedPairingTables(channel)),
  };
};

beforeEach(() => {
  clock = new FakeClock(Date.parse('2026-03-01T10:00:00Z'));
  db = openDatabase(':memory:');
  new DeliverySpool(db, clock); // applies the channels track
});

describe('ChannelPairing on the shared tables', () => {
  it('pairs the owner first, then allowed users, each channel on its own', () => {
    const discord = pairingFor('discord');
    const slack = pairingFor('slack');
    const code = discord.pairing.createCode();
    expect(slack.pairing.redeem('U1', 'ada', code.code)).toEqual({ kind: 'invalid' });
    expect(discord.pairing.redeem('81', 'ada', code.code)).toMatchObject({
      kind: 'paired',
      user: { userId: '81', role: 'owner', name: 'ada' },
    });
    expect(discord.pairing.redeem('82', 'bob', code.code)).toEqual({ kind: 'invalid' });
    expect(discord.pairing.redeem('82', 'bob', discord.pairing.createCode().code)).toMatchObject({
      kind: 'paired',
      user: { role: 'allowed' },
    });
    expect(slack.users.owner()).toBeUndefined();
    expect(slack.pairing.redeem('U1', 'ada', slack.pairing.createCode().code)).toMatchObject({
      user: { role: 'owner' },
    });
    expect(discord.users.list().map((user) => user.userId)).toEqual(['81', '82']);
  });

  it('expires codes after the TTL and locks out a flood of attempts', async () => {
    const { pairing } = pairingFor('discord');
    const code = pairing.createCode();
    expect(pairing.pendingCount()).toBe(1);
    await clock.advance(PAIRING_CODE_TTL_MS);
    expect(pairing.redeem('81', 'ada', code.code)).toEqual({ kind: 'invalid' });
    const fresh = pairing.createCode();
    for (let attempt = 1; attempt < PAIRING_ATTEMPT_LIMIT; attempt++) pairing.redeem('81', 'ada', 'WRONGCOD');
    expect(pairing.redeem('81', 'ada', fresh.code)).toMatchObject({ kind: 'rate-limited', first: true });
    expect(pairing.redeem('81', 'ada', fresh.code)).toMatchObject({ kind: 'rate-limited', first: false });
    await clock.advance(PAIRING_ATTEMPT_WINDOW_MS);
    expect(pairing.redeem('81', 'ada', fresh.code)).toMatchObject({ kind: 'paired' });
  });

  it('keeps Telegram on its own tables: a code made there still pairs there', () => {
    const telegramDb = openTelegramDatabase();
    const users = new TelegramUsers(telegramDb);
    const pairing = new TelegramPairing(telegramDb, users, clock);
    const code = pairing.createCode();
    expect(pairing.redeem(7, 'ada', code.code)).toMatchObject({
      kind: 'paired',
      user: { userId: 7, role: 'owner' },
    });
  });
});
