import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import { type ChatEvent, isOpenLegionError } from '@openlegion/protocol';
import { type FakeDiscord, startFakeDiscord } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openDiscordDatabase } from '../../test/discord-database.js';
import { FakeChannelMesh } from '../../test/fake-channel-mesh.js';
import { ChannelStatusBoard } from '../core/channel-status.js';
import { DiscordChannel, type DiscordChannelOptions } from './discord-channel.js';

const OWNER = { id: '900000000000000001', username: 'ada' };
const FORBIDDEN = { guildId: '800000000000000001', channelId: '800000000000000009' };

let discord: FakeDiscord;
let mesh: FakeChannelMesh;
let db: Database;
const channels: DiscordChannel[] = [];
const logLines: { level: number; msg: string; code?: string }[] = [];
const logger = pino(
  { level: 'debug' },
  { write: (line: string) => void logLines.push(JSON.parse(line) as (typeof logLines)[number]) },
);

async function setUp(options: Parameters<typeof startFakeDiscord>[0] = {}): Promise<void> {
  discord = await startFakeDiscord({ heartbeatIntervalMs: 500, ...options });
  mesh = new FakeChannelMesh();
  db ??= openDiscordDatabase();
}

function newChannel(options: Partial<DiscordChannelOptions> = {}): DiscordChannel {
  const channel = new DiscordChannel({
    token: discord.token,
    apiRoot: discord.apiRoot,
    gatewayUrl: discord.gatewayUrl,
    db,
    logger,
    defaultAgent: 'researcher',
    allowedChannels: [FORBIDDEN.channelId],
    editIntervalMs: 20,
    readyTimeoutMs: 5_000,
    ...options,
  });
  channels.push(channel);
  return channel;
}

async function pairedChannel(options: Partial<DiscordChannelOptions> = {}): Promise<DiscordChannel> {
  const channel = newChannel(options);
  await channel.start(mesh);
  if (!channel.ownerPaired()) {
    discord.sendDm(OWNER, `/pair ${channel.pendingPairingCode()?.code ?? ''}`);
    await discord.waitFor(() => dm().some((text) => text.includes('owner')));
  }
  return channel;
}

/** What `openlegion status` shows for Discord. */
const boardLine = () =>
  new ChannelStatusBoard(db, systemClock).all().find((line) => line.channel === 'discord');
const dm = () => discord.messagesIn(discord.dmChannelOf(OWNER.id)).map((message) => message.content);
const settle = (ms = 200) => new Promise((resolve) => setTimeout(resolve, ms));

async function startError(channel: DiscordChannel): Promise<{ code: string; message: string }> {
  const error: unknown = await channel.start(mesh).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!isOpenLegionError(error)) throw new Error(`expected an OpenLegionError, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

afterEach(async () => {
  await Promise.all(channels.splice(0).map((channel) => channel.stop()));
  await discord?.close();
  db?.close();
  db = undefined as unknown as Database;
  logLines.length = 0;
});

describe('DiscordChannel bad input', () => {
  it('reports a token Discord rejects (401) as CHAN_TOKEN_REJECTED, with a failed status, and does not crash', async () => {
    await setUp();
    const channel = newChannel({ token: 'not-the-token' });
    expect(await startError(channel)).toEqual({
      code: 'CHAN_TOKEN_REJECTED',
      message:
        'Discord rejected the bot token (401 Unauthorized); check channels.discord.token (Bot → Reset Token in the developer portal)',
    });
    expect(channel.status).toMatchObject({ state: 'failed', code: 'CHAN_TOKEN_REJECTED' });
    // Kept in mesh.db for `openlegion discord status`.
    expect(boardLine()).toMatchObject({ state: 'token_rejected' });
    expect(
      logLines.some(
        (line) => line.msg === 'discord channel not started' && line.code === 'CHAN_TOKEN_REJECTED',
      ),
    ).toBe(true);
    expect(discord.gateway.connectionCount).toBe(0);
  });

  it('names the Message Content intent when the gateway closes with 4014', async () => {
    await setUp({ messageContentIntent: false });
    const channel = newChannel();
    expect(await startError(channel)).toEqual({
      code: 'CHAN_INTENT_MISSING',
      message:
        'Discord refused the MESSAGE_CONTENT intent (gateway close 4014): switch on "Message Content Intent" under Bot → Privileged Gateway Intents in the developer portal',
    });
    expect(channel.status).toMatchObject({ state: 'failed', code: 'CHAN_INTENT_MISSING' });
    expect(boardLine()).toMatchObject({ state: 'missing_permission' });
    await settle();
    // Closed for good: no reconnect storm.
    expect(discord.gateway.connectionCount).toBe(1);
  });

  it('logs a channel the bot may not post in (403) once and does not retry', async () => {
    await setUp({ forbiddenChannels: [FORBIDDEN.channelId] });
    await pairedChannel();
    discord.sendInChannel(FORBIDDEN, OWNER, 'hello there', { mention: true });
    await discord.waitFor(() => mesh.chats.length === 1);
    await settle(400);
    const posts = discord.calls.filter((call) => call.route === `/channels/${FORBIDDEN.channelId}/messages`);
    expect(posts.map((call) => call.status)).toEqual([403]);
    expect(logLines.filter((line) => line.msg.includes('may not post in this channel (403)'))).toHaveLength(
      1,
    );
    expect(boardLine()).toMatchObject({ state: 'forbidden' });
    // The channel goes on answering elsewhere.
    discord.sendDm(OWNER, 'still there?');
    await discord.waitFor(() => dm().includes('echo: still there?'));
  });

  it('honours a 429 with retry_after: waits, then sends once', async () => {
    await setUp();
    await pairedChannel();
    discord.fail('POST /channels/:id/messages', { kind: 'rate-limit', retryAfterSeconds: 1 });
    const sentAt = Date.now();
    discord.sendDm(OWNER, 'slow down');
    await discord.waitFor(() => dm().includes('echo: slow down'), 10_000);
    const posts = discord.calls
      .filter((call) => call.method === 'POST' && call.route.endsWith('/messages'))
      .slice(-2);
    expect(posts.map((call) => call.status)).toEqual([429, 200]);
    expect((posts[1]?.at ?? 0) - (posts[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(900);
    expect(dm().filter((text) => text === 'echo: slow down')).toHaveLength(1);
  });

  it('keeps one reply through a gateway reconnect mid-stream, and drops the events the RESUME replays', async () => {
    await setUp();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let chats = 0;
    mesh.chat = async function* (): AsyncIterable<ChatEvent> {
      chats += 1;
      yield { type: 'text_delta', text: 'first half, ' };
      await gate;
      yield { type: 'text_delta', text: 'second half.' };
      yield { type: 'done', conversation_id: 'c', text: 'first half, second half.' };
    } as FakeChannelMesh['chat'];
    const channel = await pairedChannel();
    discord.sendDm(OWNER, 'go');
    await discord.waitFor(() => dm().includes('first half,'));
    discord.gateway.requestReconnect();
    await discord.waitFor(() => discord.gateway.resumes.length === 1);
    // Cut the line; the next RESUME redelivers the last three events (the pairing and 'go' among them).
    discord.gateway.rewindNextResume(3);
    discord.gateway.dropConnection();
    await discord.waitFor(() => discord.gateway.resumes.length === 2 && discord.gateway.connected, 10_000);
    release();
    await discord.waitFor(() => dm().includes('first half, second half.'));
    await settle();
    expect(dm().filter((text) => text.startsWith('first half'))).toHaveLength(1);
    expect(chats).toBe(1);
    expect(
      logLines.filter((line) => line.msg.startsWith('discord: replayed event dropped')).length,
    ).toBeGreaterThan(0);
    expect(channel.status.state).toBe('ready');
  });

  it('answers a message Discord replays (same id, new sequence) once, also after a restart', async () => {
    await setUp();
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'discord-')), 'mesh.db');
    db = openDiscordDatabase(file);
    const first = await pairedChannel();
    const id = discord.sendDm(OWNER, 'only once');
    await discord.waitFor(() => dm().includes('echo: only once'));
    discord.replay(id);
    discord.replay(id);
    await settle();
    expect(logLines.filter((line) => line.msg.startsWith('discord: replayed event dropped'))).toHaveLength(2);
    await first.stop();
    db.close();
    db = openDiscordDatabase(file);
    await pairedChannel();
    discord.replay(id);
    await settle();
    expect(dm().filter((text) => text === 'echo: only once')).toHaveLength(1);
    expect(mesh.chats.filter((chat) => chat.request.message === 'only once')).toHaveLength(1);
  });

  it('identifies again after an invalid session (op 9, not resumable) and keeps answering', async () => {
    await setUp();
    await pairedChannel();
    discord.gateway.invalidateSession(false);
    await discord.waitFor(() => discord.gateway.identifies.length === 2, 15_000);
    await discord.waitFor(() => discord.gateway.connected);
    discord.sendDm(OWNER, 'after op 9');
    await discord.waitFor(() => dm().includes('echo: after op 9'));
  }, 20_000);
});
