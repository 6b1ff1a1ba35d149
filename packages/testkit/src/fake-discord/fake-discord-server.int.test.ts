import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type FakeDiscord, startFakeDiscord } from './fake-discord-server.js';

interface Frame {
  op: number;
  d: Record<string, unknown> | boolean | null;
  s: number | null;
  t: string | null;
}

let discord: FakeDiscord;
const sockets: WebSocket[] = [];

/** A raw gateway client: what it received, and a way to wait for a frame. */
async function connect(url: string) {
  const socket = new WebSocket(`${url}?v=10&encoding=json`);
  sockets.push(socket);
  const frames: Frame[] = [];
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  socket.on('message', (raw) => frames.push(JSON.parse(String(raw)) as Frame));
  await new Promise((resolve) => socket.once('open', resolve));
  const next = (match: (frame: Frame) => boolean) => discord.waitFor(() => frames.find(match));
  const send = (op: number, d: unknown) => socket.send(JSON.stringify({ op, d }));
  return { socket, frames, closed, next, send };
}

beforeEach(async () => {
  discord = await startFakeDiscord({ heartbeatIntervalMs: 1_000 });
});

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await discord.close();
});

describe('fake Discord', () => {
  it('speaks the gateway: HELLO, ACK, READY with a session, numbered dispatches, RESUME replaying what was missed', async () => {
    const gatewayInfo = await fetch(`${discord.apiRoot}/v10/gateway/bot`, {
      headers: { authorization: `Bot ${discord.token}` },
    });
    expect(await gatewayInfo.json()).toMatchObject({ url: discord.gatewayUrl, shards: 1 });

    const first = await connect(discord.gatewayUrl);
    expect((await first.next((frame) => frame.op === 10)).d).toEqual({ heartbeat_interval: 1_000 });
    first.send(1, null);
    await first.next((frame) => frame.op === 11);
    first.send(2, { token: discord.token, intents: 1 << 15, properties: {} });
    const ready = await first.next((frame) => frame.t === 'READY');
    const session = ready.d as { session_id: string; resume_gateway_url: string; user: { id: string } };
    expect(ready.s).toBe(1);
    expect(session.user.id).toBe(discord.bot.id);
    discord.sendDm({ id: '7', username: 'ada' }, 'one');
    expect((await first.next((frame) => frame.t === 'MESSAGE_CREATE')).s).toBe(2);

    first.socket.terminate();
    await first.closed;
    discord.sendDm({ id: '7', username: 'ada' }, 'two');
    const second = await connect(session.resume_gateway_url);
    await second.next((frame) => frame.op === 10);
    second.send(6, { token: discord.token, session_id: session.session_id, seq: 2 });
    await second.next((frame) => frame.t === 'RESUMED');
    expect(second.frames.filter((frame) => frame.op === 0).map((frame) => [frame.t, frame.s])).toEqual([
      ['MESSAGE_CREATE', 3],
      ['RESUMED', 4],
    ]);
    expect(((second.frames[1]?.d ?? {}) as { content?: string }).content).toBe('two');

    discord.gateway.requestReconnect();
    await second.next((frame) => frame.op === 7);
    discord.gateway.invalidateSession(false);
    await second.next((frame) => frame.op === 9 && frame.d === false);
  });

  it('closes IDENTIFY with a bad token (4004) and with a privileged intent the app lacks (4014)', async () => {
    const bad = await connect(discord.gatewayUrl);
    bad.send(2, { token: 'wrong', intents: 0 });
    expect(await bad.closed).toBe(4004);
    await discord.close();
    discord = await startFakeDiscord({ messageContentIntent: false });
    const noIntent = await connect(discord.gatewayUrl);
    noIntent.send(2, { token: discord.token, intents: 1 << 15 });
    expect(await noIntent.closed).toBe(4014);
  });

  it('answers REST as Discord: 401 for a bad token, 2,000 characters at most, 403 where the bot may not post, 429 with retry_after', async () => {
    await discord.close();
    discord = await startFakeDiscord({ forbiddenChannels: ['13'] });
    const post = (channel: string, content: string, token = discord.token) =>
      fetch(`${discord.apiRoot}/v10/channels/${channel}/messages`, {
        method: 'POST',
        headers: { authorization: `Bot ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content }),
      });
    expect((await post('12', 'hi', 'wrong')).status).toBe(401);
    expect((await post('12', 'x'.repeat(2_001))).status).toBe(400);
    expect(await (await post('13', 'hi')).json()).toEqual({ message: 'Missing Permissions', code: 50013 });
    discord.fail('POST /channels/:id/messages', { kind: 'rate-limit', retryAfterSeconds: 2 });
    const limited = await post('12', 'hi');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await limited.json()).toMatchObject({ retry_after: 2, global: false });
    const sent = (await (await post('12', 'hello')).json()) as { id: string };
    const edited = await fetch(`${discord.apiRoot}/v10/channels/12/messages/${sent.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bot ${discord.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'hello, world' }),
    });
    expect(edited.status).toBe(200);
    expect(discord.messagesIn('12')).toEqual([
      expect.objectContaining({ content: 'hello, world', history: ['hello'] }),
    ]);
  });
});
