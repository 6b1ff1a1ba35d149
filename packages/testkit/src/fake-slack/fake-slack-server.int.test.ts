import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startFakeSlack } from './fake-slack-server.js';
import type { FakeSlack } from './slack-types.js';

let slack: FakeSlack;

const call = async (method: string, token: string, params: Record<string, string> = {}) => {
  const response = await fetch(`${slack.url}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
};

/** Open the Socket Mode connection as Slack's client does; resolves with the socket and what it received. */
async function connect(): Promise<{ socket: WebSocket; received: Record<string, unknown>[] }> {
  const { body } = await call('apps.connections.open', slack.appToken);
  const socket = new WebSocket(String(body.url));
  const received: Record<string, unknown>[] = [];
  socket.on('message', (data) => received.push(JSON.parse(String(data)) as Record<string, unknown>));
  await new Promise((resolve) => socket.once('open', resolve));
  await slack.waitFor(() => received.some((message) => message.type === 'hello'));
  return { socket, received };
}

beforeEach(async () => {
  slack = await startFakeSlack({ memberOf: ['C0MEMBER'] });
});

afterEach(async () => {
  await slack.close();
});

describe('fake Slack Web API', () => {
  it('answers auth.test with the bot and its scopes, and invalid_auth to another token', async () => {
    const ok = await call('auth.test', slack.botToken);
    expect(ok.body).toMatchObject({ ok: true, user_id: slack.botUserId, team_id: slack.teamId });
    expect(ok.headers.get('x-oauth-scopes')).toContain('chat:write');
    expect((await call('auth.test', 'xoxb-wrong')).body).toEqual({ ok: false, error: 'invalid_auth' });
  });

  it('posts and edits messages within the limits, refusing a channel the bot is not in', async () => {
    const posted = await call('chat.postMessage', slack.botToken, { channel: 'C0MEMBER', text: 'one' });
    const ts = String(posted.body.ts);
    await call('chat.update', slack.botToken, { channel: 'C0MEMBER', ts, text: 'one two' });
    expect(slack.messagesIn('C0MEMBER')).toEqual([
      expect.objectContaining({ ts, text: 'one two', edits: ['one'] }),
    ]);
    expect(
      (await call('chat.postMessage', slack.botToken, { channel: 'C0OTHER', text: 'x' })).body.error,
    ).toBe('not_in_channel');
    expect(
      (await call('chat.postMessage', slack.botToken, { channel: 'D0ADA', text: 'x'.repeat(40_001) })).body
        .error,
    ).toBe('msg_too_long');
  });

  it('answers an injected 429 with Retry-After and missing_scope with the scope needed', async () => {
    slack.fail('chat.postMessage', { status: 429, retryAfterSeconds: 3 });
    slack.fail('chat.update', { error: 'missing_scope', needed: 'chat:write' });
    const limited = await call('chat.postMessage', slack.botToken, { channel: 'D0ADA', text: 'x' });
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '3']);
    const scoped = await call('chat.update', slack.botToken, { channel: 'D0ADA', ts: '1', text: 'x' });
    expect(scoped.body).toMatchObject({ ok: false, error: 'missing_scope', needed: 'chat:write' });
  });
});

describe('fake Slack Socket Mode', () => {
  it('says hello, sends events as envelopes that want an ack, and replays them with retry_attempt', async () => {
    const { socket, received } = await connect();
    const envelope = slack.sendDm({ id: 'U0ADA' }, 'hi');
    await slack.waitFor(() => received.some((message) => message.envelope_id === envelope.envelope_id));
    expect(received.at(-1)).toMatchObject({
      type: 'events_api',
      retry_attempt: 0,
      payload: { event: { type: 'message', channel_type: 'im', user: 'U0ADA', text: 'hi' } },
    });
    socket.send(JSON.stringify({ envelope_id: envelope.envelope_id, payload: {} }));
    await slack.waitFor(() => envelope.acked);
    const again = slack.replay(envelope);
    await slack.waitFor(() => received.some((message) => message.envelope_id === again.envelope_id));
    expect(received.at(-1)).toMatchObject({ retry_attempt: 1, retry_reason: 'timeout' });
    expect(received.at(-1)).toMatchObject({ payload: { event_id: envelope.payload.event_id } });
    slack.disconnect('refresh_requested');
    await slack.waitFor(() => received.some((message) => message.type === 'disconnect'));
    socket.close();
  });

  it('keeps what it could not deliver for the next connection', async () => {
    slack.sendDm({ id: 'U0ADA' }, 'while away');
    const { socket, received } = await connect();
    await slack.waitFor(() => received.some((message) => message.type === 'events_api'));
    expect(slack.connections()).toBe(1);
    socket.close();
  });
});
