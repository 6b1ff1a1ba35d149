import { createServer } from 'node:net';
import type { Database } from '@openlegion/infra/sqlite';
import { type FakeTelegram, startFakeTelegram } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeChannelMesh } from '../../test/fake-channel-mesh.js';
import { openTelegramDatabase } from '../../test/telegram-database.js';
import { TelegramChannel } from './telegram-channel.js';

const OWNER = { id: 6101, first_name: 'Ada' };
const SECRET = 'webhook-secret-0123456789';

let telegram: FakeTelegram;
let mesh: FakeChannelMesh;
let db: Database;
let channel: TelegramChannel | undefined;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

beforeEach(async () => {
  telegram = await startFakeTelegram();
  mesh = new FakeChannelMesh();
  db = openTelegramDatabase();
});

afterEach(async () => {
  await channel?.stop();
  channel = undefined;
  await telegram.close();
  db.close();
});

describe('TelegramChannel webhook', () => {
  it('sets the webhook with its secret, takes updates Telegram posts, and refuses posts without the secret', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/telegram/hook`;
    channel = new TelegramChannel({
      token: telegram.token,
      apiRoot: telegram.url,
      db,
      logger: pino({ level: 'silent' }),
      webhook: { url, secretToken: SECRET, listen: { port } },
    });
    channel.users.pair(OWNER.id, 'Ada', Date.now());
    await channel.start(mesh);
    expect(telegram.webhook()).toEqual({ url, secret_token: SECRET });

    telegram.sendPrivate(OWNER, 'by webhook');
    await telegram.waitFor(() =>
      telegram.messagesTo(OWNER.id).some((message) => message.visible === 'echo: by webhook'),
    );
    expect(telegram.webhookDeliveries).toEqual([{ update_id: 1, status: 200 }]);

    const forged = {
      update_id: 50,
      message: {
        message_id: 1,
        chat: { id: OWNER.id, type: 'private' },
        from: { id: OWNER.id, first_name: 'Ada' },
        text: 'forged',
      },
    };
    for (const secret of [undefined, 'webhook-secret-0123456780']) {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(secret ? { 'x-telegram-bot-api-secret-token': secret } : {}),
        },
        body: JSON.stringify(forged),
      });
      expect(response.status).toBe(401);
    }
    expect(mesh.chats.map((chat) => chat.request.message)).toEqual(['by webhook']);
  });

  it('refuses a webhook secret Telegram would not accept, naming the field', async () => {
    channel = new TelegramChannel({
      token: telegram.token,
      apiRoot: telegram.url,
      db,
      logger: pino({ level: 'silent' }),
      webhook: { url: 'https://bot.example/hook', secretToken: 'short', listen: { port: 0 } },
    });
    await expect(channel.start(mesh)).rejects.toMatchObject({
      code: 'CHAN_WEBHOOK_INVALID',
      message: expect.stringContaining('secretToken'),
    });
  });
});
