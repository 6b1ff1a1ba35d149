import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '@openlegion/infra/sqlite';
import type { ChannelChatRequest, ChatEvent } from '@openlegion/protocol';
import {
  Chaos,
  exactlyOnce,
  type FakeTelegram,
  type FakeTelegramFault,
  type FakeTelegramUpdate,
  startFakeTelegram,
} from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeChannelMesh } from '../../test/fake-channel-mesh.js';
import { openTelegramDatabase } from '../../test/telegram-database.js';
import { TelegramChannel } from './telegram-channel.js';

/** Set CHAOS_SEED to replay a failing run. */
const SEED = Number(process.env.CHAOS_SEED ?? 2026);
const MESSAGES = 30;
/** The host is "killed" (the channel stopped with no grace) after this many messages, and started again a few later. */
const KILL_AFTER = 12;
const RESTART_AFTER = 16;
const USERS = [
  { id: 5101, first_name: 'Ada' },
  { id: 5102, first_name: 'Bob' },
  { id: 5103, first_name: 'Cy' },
];
const logger = pino({ level: 'silent' });

/** An agent that streams its echo in three pieces, a few random milliseconds apart. */
class SlowMesh extends FakeChannelMesh {
  /** Turns running now (the kill waits for one, so it cuts a turn mid-reply). */
  inFlight = 0;

  constructor(private readonly chaos: Chaos) {
    super();
  }

  override async *chat(
    _agent: string,
    request: ChannelChatRequest,
    signal?: AbortSignal,
  ): AsyncIterable<ChatEvent> {
    this.chats.push({ agent: _agent, request });
    this.inFlight += 1;
    try {
      for (const text of ['echo: ', request.message, ' (done)']) {
        await sleep(this.chaos.between(10, 60), undefined, { signal });
        yield { type: 'text_delta', text };
      }
      yield { type: 'done', conversation_id: request.conversation_id ?? 'c', text: '' };
    } finally {
      this.inFlight -= 1;
    }
  }
}

let telegram: FakeTelegram;
let db: Database;
const running: TelegramChannel[] = [];

const startChannel = async (mesh: FakeChannelMesh) => {
  const channel = new TelegramChannel({
    token: telegram.token,
    apiRoot: telegram.url,
    db,
    logger,
    defaultAgent: 'researcher',
    pollTimeoutSeconds: 1,
    editIntervalMs: 20,
    stopGraceMs: 0,
    maxDeliveryAttempts: 30,
    deliveryBackoffMs: () => 50,
  });
  running.push(channel);
  await channel.start(mesh);
  return channel;
};

beforeEach(async () => {
  telegram = await startFakeTelegram();
  db = openTelegramDatabase();
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((channel) => channel.stop()));
  await telegram.close();
  db.close();
});

describe('Telegram under chaos', () => {
  it('answers every message exactly once through drops, delays, duplicates, replays, failed sends and a kill', async () => {
    const chaos = new Chaos(SEED);
    const mesh = new SlowMesh(chaos);
    // Telegram re-sends what getUpdates did not confirm: a drop cuts the batch (the rest comes
    // again); a replay is an update handed over before (never one still ahead of the offset).
    telegram.setUpdateFilter(async (batch, history) => {
      const delay = chaos.delayMs();
      if (delay > 0) await sleep(delay);
      const first = batch[0]?.update_id ?? Number.POSITIVE_INFINITY;
      const before = history.filter((update: FakeTelegramUpdate) => update.update_id < first);
      return chaos.deliver(batch, before, { redeliver: true });
    });
    let refusals = 0;
    telegram.setFaultPicker((method): FakeTelegramFault | undefined => {
      if (method !== 'sendMessage' && method !== 'editMessageText') return undefined;
      if (!chaos.failSend()) return undefined;
      // Mostly refusals the delivery core retries; now and then a 502 the API client retries (1 s).
      refusals += 1;
      return refusals % 4 === 0
        ? { kind: 'server-error', status: 502 }
        : { kind: 'refuse', description: 'Bad Request: chaos says no' };
    });

    let channel = await startChannel(mesh);
    for (const user of USERS) channel.users.pair(user.id, user.first_name, Date.now());
    const sent: string[] = [];
    for (let index = 0; index < MESSAGES; index++) {
      const text = `msg-${String(index).padStart(3, '0')}`;
      telegram.sendPrivate(USERS[index % USERS.length] ?? { id: 0 }, text);
      sent.push(text);
      await sleep(chaos.between(0, 40));
      if (index + 1 === KILL_AFTER) {
        await telegram.waitFor(() => mesh.inFlight > 0);
        await channel.stop();
      }
      if (index + 1 === RESTART_AFTER) channel = await startChannel(mesh);
    }

    const repliesTo = (text: string) =>
      telegram.messages.filter((message) => message.visible.includes(`echo: ${text}`)).length;
    const finished = (text: string) =>
      telegram.messages.some((message) => message.visible.includes(`echo: ${text} (done)`));
    await telegram.waitFor(() => sent.every(finished), 40_000);
    await sleep(300); // anything late (a second send) would show now

    expect(exactlyOnce(sent, repliesTo)).toEqual({ missing: [], duplicated: [] });
    expect(channel.spool.counts('telegram')).toEqual({
      accepted: 0,
      running: 0,
      answered: MESSAGES,
      dead: 0,
    });
    // The kill cut at least one turn, which was asked again; the person still saw one reply.
    expect(mesh.chats.length).toBeGreaterThan(MESSAGES);
    // The run was chaotic: every kind of fault happened at least once.
    expect(chaos.tally).toEqual({
      dropped: expect.any(Number),
      delayed: expect.any(Number),
      duplicated: expect.any(Number),
      replayed: expect.any(Number),
      failedSends: expect.any(Number),
    });
    for (const count of Object.values(chaos.tally)) expect(count).toBeGreaterThan(0);
  }, 60_000);
});
