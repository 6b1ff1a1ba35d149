import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Database } from '@openlegion/infra/sqlite';
import type { ChannelChatRequest, ChatEvent } from '@openlegion/protocol';
import { Chaos, exactlyOnce, type FakeDiscord, startFakeDiscord } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openDiscordDatabase } from '../../test/discord-database.js';
import { FakeChannelMesh } from '../../test/fake-channel-mesh.js';
import { DiscordChannel, type DiscordChannelOptions } from './discord-channel.js';

const OWNER = { id: '900000000000000001', username: 'ada' };
const MESSAGES = 24;
/** The message after which the channel is stopped abruptly (no grace) and started again. */
const RESTART_AFTER = 12;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let discord: FakeDiscord;
let db: Database;
const channels: DiscordChannel[] = [];
const logger = pino({ level: 'silent' });

afterEach(async () => {
  await Promise.all(channels.splice(0).map((channel) => channel.stop()));
  await discord?.close();
  db?.close();
});

describe('Discord chaos', () => {
  it('answers every message exactly once through drops, delays, duplicates, replays, failed sends and one restart', async () => {
    discord = await startFakeDiscord({ heartbeatIntervalMs: 500 });
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'discord-chaos-')), 'mesh.db');
    db = openDiscordDatabase(file);
    const mesh = new FakeChannelMesh();
    // Each answer streams in two parts, so a restart or a fault can land between them.
    mesh.chat = async function* (_agent: string, request: ChannelChatRequest): AsyncIterable<ChatEvent> {
      yield { type: 'text_delta', text: `echo: ${request.message}` };
      await sleep(10 + (request.message.length % 5) * 10);
      yield { type: 'text_delta', text: ' ✓' };
      yield { type: 'done', conversation_id: 'c', text: `echo: ${request.message} ✓` };
    };
    const options: Partial<DiscordChannelOptions> = {
      backoffMs: () => 50,
      maxAttempts: 30,
      stopGraceMs: 0,
      // The fake agent does not steer: each message is its own turn (the redirect note is tested elsewhere).
      whenBusy: 'queue',
    };
    const start = async () => {
      const channel = new DiscordChannel({
        token: discord.token,
        apiRoot: discord.apiRoot,
        gatewayUrl: discord.gatewayUrl,
        db,
        logger,
        defaultAgent: 'researcher',
        editIntervalMs: 20,
        ...options,
      });
      channels.push(channel);
      await channel.start(mesh);
      return channel;
    };
    let channel = await start();
    discord.sendDm(OWNER, `/pair ${channel.pendingPairingCode()?.code ?? ''}`);
    const dm = () => discord.messagesIn(discord.dmChannelOf(OWNER.id));
    await discord.waitFor(() => dm().some((message) => message.content.includes('owner')));

    const chaos = new Chaos(Number(process.env.CHAOS_SEED ?? 26));
    const sent: string[] = [];
    const sentIds: string[] = [];
    let rateLimited = 0;
    for (let index = 0; index < MESSAGES; index++) {
      await discord.waitFor(() => discord.gateway.connected, 15_000);
      const text = `msg-${index}`;
      sent.push(text);
      const id = discord.sendDm(OWNER, text);
      sentIds.push(id);
      if (chaos.chance(chaos.rates.duplicate)) {
        chaos.tally.duplicated += 1;
        discord.replay(id);
      }
      if (chaos.chance(chaos.rates.replay)) {
        chaos.tally.replayed += 1;
        discord.replay(sentIds[chaos.between(0, sentIds.length - 1)] ?? id);
      }
      if (chaos.chance(chaos.rates.drop)) {
        // Lost on the wire: the RESUME brings back what was missed, and redelivers two seen events.
        chaos.tally.dropped += 1;
        discord.gateway.rewindNextResume(2);
        discord.gateway.dropConnection();
      }
      const delayMs = chaos.delayMs();
      if (delayMs > 0) discord.fail('*', { kind: 'delay', ms: delayMs }, 2);
      if (chaos.failSend()) {
        // More 5xx than discord.js retries on its own: the delivery core's retry takes over.
        const route = chaos.chance(0.5) ? 'POST /channels/:id/messages' : 'PATCH /channels/:id/messages/:id';
        discord.fail(route, { kind: 'server-error', status: 502 }, 4);
      }
      if (index === 5) {
        rateLimited += 1;
        discord.fail('POST /channels/:id/messages', { kind: 'rate-limit', retryAfterSeconds: 1 });
      }
      if (index === RESTART_AFTER) {
        await sleep(15);
        const stopping = channels.splice(channels.indexOf(channel), 1)[0];
        await stopping?.stop();
        channel = await start();
      }
      await sleep(chaos.between(0, 30));
    }

    const repliesTo = (text: string) =>
      dm().filter((message) => message.content === `echo: ${text}` || message.content === `echo: ${text} ✓`);
    const finished = () => sent.every((text) => repliesTo(text).some((reply) => reply.content.endsWith('✓')));
    await discord.waitFor(finished, 30_000).catch((error: unknown) => {
      throw new Error(`${String(error)} (seed ${chaos.seed}, ${JSON.stringify(chaos.tally)})`);
    });
    await sleep(500);
    expect(chaos.tally).toMatchObject({
      dropped: expect.any(Number),
      duplicated: expect.any(Number),
    });
    for (const count of Object.values(chaos.tally)) expect(count).toBeGreaterThan(0);
    expect(rateLimited).toBe(1);
    expect(exactlyOnce(sent, (text) => repliesTo(text).length)).toEqual({ missing: [], duplicated: [] });
    for (const text of sent)
      expect(repliesTo(text).map((reply) => reply.content)).toEqual([`echo: ${text} ✓`]);
    expect(channel.spool.counts('discord')).toMatchObject({
      accepted: 0,
      running: 0,
      dead: 0,
      answered: MESSAGES,
    });
  }, 90_000);
});
