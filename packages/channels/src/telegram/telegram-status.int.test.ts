import { systemClock } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import { type FakeTelegram, startFakeTelegram } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeChannelMesh } from '../../test/fake-channel-mesh.js';
import { openTelegramDatabase } from '../../test/telegram-database.js';
import { ChannelStatusBoard } from '../core/channel-status.js';
import { TelegramChannel } from './telegram-channel.js';

const logger = pino({ level: 'silent' });
let telegram: FakeTelegram;
let db: Database;

const stateOf = () => new ChannelStatusBoard(db, systemClock).all()[0];

beforeEach(async () => {
  telegram = await startFakeTelegram();
  db = openTelegramDatabase();
});

afterEach(async () => {
  await telegram.close();
  db.close();
});

describe('Telegram channel status in mesh.db', () => {
  it('says token rejected when Telegram refuses the token', async () => {
    const channel = new TelegramChannel({ token: '999:wrong', apiRoot: telegram.url, db, logger });
    await expect(channel.start(new FakeChannelMesh())).rejects.toMatchObject({ code: 'CHAN_TOKEN_REJECTED' });
    expect(stateOf()).toMatchObject({ channel: 'telegram', state: 'token_rejected' });
  });

  it('is connected once started, rate limited while Telegram says wait, connected again, stopped at the end', async () => {
    const channel = new TelegramChannel({
      token: telegram.token,
      apiRoot: telegram.url,
      db,
      logger,
      pollTimeoutSeconds: 1,
    });
    await channel.start(new FakeChannelMesh());
    expect(stateOf()).toMatchObject({ state: 'connected', detail: '@openlegion_test_bot, polling' });
    telegram.fail('getUpdates', { kind: 'rate-limit', retryAfterSeconds: 1 });
    await telegram.waitFor(() => stateOf()?.state === 'rate_limited');
    expect(stateOf()?.detail).toBe('Telegram asked to wait 1 s');
    await telegram.waitFor(() => stateOf()?.state === 'connected', 5_000);
    await channel.stop();
    expect(stateOf()).toMatchObject({ state: 'stopped' });
  });
});
