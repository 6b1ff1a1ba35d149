import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from '../index.js';

let telegram: FakeTelegram;

beforeEach(async () => {
  telegram = await startFakeTelegram({ botUsername: 'legion_bot' });
});

afterEach(async () => {
  await telegram.close();
});

async function call(method: string, body: unknown = {}, token = telegram.token) {
  const response = await fetch(`${telegram.url}/bot${token}/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('startFakeTelegram', () => {
  it('answers getMe for its token and 401 Unauthorized for any other', async () => {
    expect(await call('getMe')).toMatchObject({
      status: 200,
      body: { ok: true, result: { is_bot: true, username: 'legion_bot' } },
    });
    expect(await call('getMe', {}, '1:wrong')).toEqual({
      status: 401,
      body: { ok: false, error_code: 401, description: 'Unauthorized' },
    });
    expect(telegram.calls.map((entry) => entry.authorized)).toEqual([true, false]);
  });

  it('long-polls getUpdates until a user writes, and confirms updates below the offset', async () => {
    const polling = call('getUpdates', { timeout: 5 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    telegram.sendPrivate({ id: 7 }, '/start@legion_bot hi @someone_else');
    const first = await polling;
    const updates = first.body.result as {
      update_id: number;
      message: { text: string; entities: unknown[] };
    }[];
    expect(updates).toHaveLength(1);
    expect(updates[0]?.message.entities).toEqual([
      { type: 'bot_command', offset: 0, length: 17 },
      { type: 'mention', offset: 21, length: 13 },
    ]);
    await call('getUpdates', { offset: (updates[0]?.update_id ?? 0) + 1, timeout: 0 });
    expect(telegram.pendingUpdates()).toEqual([]);
  });

  it('checks HTML and length as Telegram does, and keeps the edit history', async () => {
    expect((await call('sendMessage', { chat_id: 7, text: 'a < b', parse_mode: 'HTML' })).body).toMatchObject(
      {
        ok: false,
        description: expect.stringContaining("can't parse entities"),
      },
    );
    expect((await call('sendMessage', { chat_id: 7, text: 'x'.repeat(4097) })).body).toMatchObject({
      description: 'Bad Request: message is too long',
    });
    const sent = await call('sendMessage', { chat_id: 7, text: '<b>a</b> &lt; b', parse_mode: 'HTML' });
    const id = (sent.body.result as { message_id: number }).message_id;
    const edit = { chat_id: 7, message_id: id, text: '<b>a</b> &lt; c', parse_mode: 'HTML' };
    expect((await call('editMessageText', edit)).status).toBe(200);
    expect((await call('editMessageText', edit)).body).toMatchObject({
      description: expect.stringContaining('message is not modified'),
    });
    expect(telegram.messagesTo(7)).toEqual([
      expect.objectContaining({ text: '<b>a</b> &lt; c', visible: 'a < c', history: ['<b>a</b> &lt; b'] }),
    ]);
  });

  it('answers planned faults instead of doing the call: 429 with retry_after, 5xx, a cut connection', async () => {
    telegram.fail('sendMessage', { kind: 'rate-limit', retryAfterSeconds: 4 });
    telegram.fail('sendMessage', { kind: 'server-error', status: 503 });
    telegram.fail('sendMessage', { kind: 'disconnect' });
    const message = { chat_id: 7, text: 'hi' };
    expect(await call('sendMessage', message)).toMatchObject({
      status: 429,
      body: { ok: false, error_code: 429, parameters: { retry_after: 4 } },
    });
    expect((await call('sendMessage', message)).status).toBe(503);
    await expect(call('sendMessage', message)).rejects.toThrow();
    expect((await call('sendMessage', message)).status).toBe(200);
    expect(telegram.messagesTo(7)).toHaveLength(1);
    expect(telegram.calls.map((entry) => entry.status)).toEqual([429, 503, 0, 200]);
  });

  it('posts updates to a webhook with its secret token, and refuses getUpdates meanwhile', async () => {
    const received: { secret: string | undefined; body: unknown }[] = [];
    const receiver = createServer((req: IncomingMessage, res) => {
      let text = '';
      req.on('data', (chunk) => {
        text += String(chunk);
      });
      req.on('end', () => {
        received.push({
          secret: req.headers['x-telegram-bot-api-secret-token'] as string,
          body: JSON.parse(text),
        });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    try {
      await call('setWebhook', { url: `http://127.0.0.1:${port}/hook`, secret_token: 'abc_DEF-123' });
      expect((await call('getUpdates')).status).toBe(409);
      telegram.sendGroup({ id: -3 }, { id: 8 }, '@legion_bot hello');
      await telegram.waitFor(() => telegram.webhookDeliveries.length === 1);
      expect(received).toEqual([
        {
          secret: 'abc_DEF-123',
          body: expect.objectContaining({ message: expect.objectContaining({ text: '@legion_bot hello' }) }),
        },
      ]);
      expect(telegram.pendingUpdates()).toEqual([]);
    } finally {
      receiver.close();
    }
  });
});
