import { FakeClock } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import { type FakeTelegram, startFakeTelegram } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeChannelMesh } from '../../test/fake-channel-mesh.js';
import { openTelegramDatabase } from '../../test/telegram-database.js';
import { TelegramChannel } from './telegram-channel.js';

const OWNER = { id: 5301, first_name: 'Ada' };

let telegram: FakeTelegram;
let mesh: FakeChannelMesh;
let db: Database;
let clock: FakeClock;
let channel: TelegramChannel;

const realPause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Move the fake clock by `stepMs` at a time, letting real I/O run between steps, until `probe` holds. */
async function pumpUntil<T>(probe: () => T | undefined | false, stepMs = 0, limit = 400): Promise<T> {
  for (let round = 0; round < limit; round++) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    await clock.advance(stepMs);
    await realPause(5);
  }
  throw new Error('condition not met while pumping the clock');
}

/** Let `ms` of clock time pass in steps, with real I/O between them. */
async function pumpFor(ms: number, stepMs = 500): Promise<void> {
  for (let passed = 0; passed < ms; passed += stepMs) {
    await clock.advance(stepMs);
    await realPause(5);
  }
}

const sendCalls = () => telegram.calls.filter((call) => call.method === 'sendMessage');
const ownerTexts = () => telegram.messagesTo(OWNER.id).map((message) => message.visible);

beforeEach(async () => {
  telegram = await startFakeTelegram();
  mesh = new FakeChannelMesh();
  db = openTelegramDatabase();
  clock = new FakeClock(Date.parse('2026-03-01T12:00:00Z'));
  channel = new TelegramChannel({
    token: telegram.token,
    apiRoot: telegram.url,
    db,
    clock,
    logger: pino({ level: 'silent' }),
    pollTimeoutSeconds: 1,
  });
  channel.users.pair(OWNER.id, 'Ada', clock.now());
  await channel.start(mesh);
});

afterEach(async () => {
  const stopping = channel.stop();
  await clock.advance(10_000);
  await stopping;
  await telegram.close();
  db.close();
});

describe('TelegramChannel when Telegram fails', () => {
  it('waits the retry_after of a 429 on the clock, then sends the reply once', async () => {
    telegram.fail('sendMessage', { kind: 'rate-limit', retryAfterSeconds: 3 });
    telegram.sendPrivate(OWNER, 'hi');
    await pumpUntil(() => sendCalls().some((call) => call.status === 429));
    await realPause(100);
    await clock.advance(2_900);
    await realPause(100);
    expect(sendCalls().length).toBe(1);
    await clock.advance(100);
    await pumpUntil(() => ownerTexts().length === 1);
    await pumpFor(10_000);
    expect(sendCalls().map((call) => call.status)).toEqual([429, 200]);
    expect(ownerTexts()).toEqual(['echo: hi']);
  });

  it('backs off after 5xx answers and sends the reply once', async () => {
    const started = clock.now();
    telegram.fail('sendMessage', { kind: 'server-error', status: 502 }, 2);
    telegram.sendPrivate(OWNER, 'hi');
    await pumpUntil(() => ownerTexts().length === 1, 250);
    // Backoff of 1 s, then 2 s, on the channel's clock.
    expect(clock.now() - started).toBeGreaterThanOrEqual(3_000);
    await pumpFor(10_000);
    expect(sendCalls().map((call) => call.status)).toEqual([502, 502, 200]);
    expect(ownerTexts()).toEqual(['echo: hi']);
  });

  it('sends again after a cut connection, once', async () => {
    telegram.fail('sendMessage', { kind: 'disconnect' });
    telegram.sendPrivate(OWNER, 'hi');
    await pumpUntil(() => ownerTexts().length === 1, 250);
    await pumpFor(10_000);
    expect(sendCalls().map((call) => call.status)).toEqual([0, 200]);
    expect(ownerTexts()).toEqual(['echo: hi']);
  });

  it('keeps polling after getUpdates fails, and loses no message sent meanwhile', async () => {
    telegram.fail('getUpdates', { kind: 'server-error', status: 503 }, 2);
    telegram.fail('getUpdates', { kind: 'disconnect' });
    telegram.sendPrivate(OWNER, 'sent while Telegram was failing');
    await pumpUntil(() => ownerTexts().length === 1, 500);
    expect(mesh.chats.map((chat) => chat.request.message)).toEqual(['sent while Telegram was failing']);
    telegram.sendPrivate(OWNER, 'and after');
    await pumpUntil(() => ownerTexts().length === 2, 500);
    expect(ownerTexts()).toEqual(['echo: sent while Telegram was failing', 'echo: and after']);
  });

  it('stops within the grace period while Telegram keeps failing, sending nothing after', async () => {
    telegram.fail('sendMessage', { kind: 'server-error', status: 503 }, 1_000);
    telegram.sendPrivate(OWNER, 'hi');
    await pumpUntil(() => sendCalls().length >= 1);
    let stopped = false;
    const stopping = channel.stop().then(() => {
      stopped = true;
    });
    await pumpFor(4_000);
    expect(stopped).toBe(false);
    await pumpFor(2_000);
    await stopping;
    const triesAtStop = sendCalls().length;
    await pumpFor(60_000, 5_000);
    expect(sendCalls().length).toBe(triesAtStop);
    expect(ownerTexts()).toEqual([]);
  });
});
