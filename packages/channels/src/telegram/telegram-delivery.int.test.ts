import type { Database } from '@openlegion/infra/sqlite';
import type { ChannelChatRequest, ChatEvent } from '@openlegion/protocol';
import { type FakeTelegram, startFakeTelegram } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeChannelMesh } from '../../test/fake-channel-mesh.js';
import { openTelegramDatabase } from '../../test/telegram-database.js';
import { TelegramChannel, type TelegramChannelOptions } from './telegram-channel.js';

const OWNER = { id: 6101, first_name: 'Ada' };
const FRIEND = { id: 6102, first_name: 'Bob' };
const logger = pino({ level: 'silent' });

/** An agent whose first turn waits for `release()` (a turn still running when the next message comes). */
class BusyMesh extends FakeChannelMesh {
  readonly requests: ChannelChatRequest[] = [];
  #release: () => void = () => {};
  readonly #held = new Promise<void>((resolve) => {
    this.#release = resolve;
  });

  release(): void {
    this.#release();
  }

  override async *chat(
    agent: string,
    request: ChannelChatRequest,
    signal?: AbortSignal,
  ): AsyncIterable<ChatEvent> {
    this.requests.push(request);
    if (this.requests.length === 1) {
      yield { type: 'text_delta', text: 'thinking about it… ' };
      await this.#held;
    }
    yield* super.chat(agent, request, signal);
  }
}

let telegram: FakeTelegram;
let db: Database;
const running: TelegramChannel[] = [];

async function startChannel(mesh: FakeChannelMesh, options: Partial<TelegramChannelOptions> = {}) {
  const channel = new TelegramChannel({
    token: telegram.token,
    apiRoot: telegram.url,
    db,
    logger,
    defaultAgent: 'researcher',
    pollTimeoutSeconds: 1,
    editIntervalMs: 20,
    ...options,
  });
  running.push(channel);
  await channel.start(mesh);
  channel.users.pair(OWNER.id, 'Ada', Date.now());
  channel.users.pair(FRIEND.id, 'Bob', Date.now());
  return channel;
}

const visibleTo = (chatId: number) => telegram.messagesTo(chatId).map((message) => message.visible);

beforeEach(async () => {
  telegram = await startFakeTelegram();
  db = openTelegramDatabase();
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((channel) => channel.stop()));
  await telegram.close();
  db.close();
});

describe('Telegram delivery', () => {
  it('steers the running turn by default, with a redirecting note (when_busy: steer)', async () => {
    const mesh = new BusyMesh();
    await startChannel(mesh);
    telegram.sendPrivate(OWNER, 'find tide tables');
    await telegram.waitFor(() => mesh.requests.length === 1);
    telegram.sendPrivate(OWNER, 'only for Brest');
    await telegram.waitFor(() => mesh.requests.length === 2);
    expect(mesh.requests.map((request) => [request.message, request.mode])).toEqual([
      ['find tide tables', 'followup'],
      ['only for Brest', 'steer'],
    ]);
    await telegram.waitFor(() => visibleTo(OWNER.id).some((text) => text.startsWith('redirecting…')));
    mesh.release();
    await telegram.waitFor(() => visibleTo(OWNER.id).includes('thinking about it… echo: find tide tables'));
  });

  it('queues it with when_busy: queue, and never steers another person', async () => {
    const mesh = new BusyMesh();
    await startChannel(mesh, { whenBusy: 'queue' });
    telegram.sendPrivate(OWNER, 'first');
    await telegram.waitFor(() => mesh.requests.length === 1);
    telegram.sendPrivate(OWNER, 'second');
    telegram.sendPrivate(FRIEND, 'hello');
    await telegram.waitFor(() => mesh.requests.length === 3);
    expect(mesh.requests.map((request) => request.mode)).toEqual(['followup', 'followup', 'followup']);
    mesh.release();
    await telegram.waitFor(() => visibleTo(OWNER.id).includes('echo: second'));
    expect(visibleTo(OWNER.id).join('\n')).not.toContain('redirecting');
  });

  it('moves a reply Telegram keeps refusing to the dead letters and tells the owner', async () => {
    const channel = await startChannel(new FakeChannelMesh(), {
      maxDeliveryAttempts: 2,
      deliveryBackoffMs: () => 10,
    });
    telegram.fail(
      'sendMessage',
      { kind: 'refuse', description: 'Forbidden: bot was blocked by the user' },
      2,
    );
    telegram.sendPrivate(FRIEND, 'are you there?');
    await telegram.waitFor(() => channel.spool.deadLetters().length === 1);
    expect(channel.spool.deadLetters()[0]).toMatchObject({
      channel: 'telegram',
      preview: 'are you there?',
      attempts: 2,
      lastError: expect.stringContaining('blocked by the user'),
    });
    await telegram.waitFor(() => visibleTo(OWNER.id).some((text) => text.includes('could not be delivered')));
    expect(visibleTo(FRIEND.id)).toEqual([]);
  });
});
