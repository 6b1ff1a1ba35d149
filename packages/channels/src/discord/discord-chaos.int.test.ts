import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Database } from '@openlegion/infra/sqlite';
import type { ChannelChatRequest, ChatEvent } from '@openlegion/protocol';
import { type FakeDiscord, startFakeDiscord } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openDiscordDatabase } from '../../test/discord-database.js';
import { FakeChannelMesh } from '../../test/fake-channel-mesh.js';
import { DiscordChannel, type DiscordChannelOptions } from './discord-channel.js';

const OWNER = { id: '900000000000000001', username: 'ada' };
const MESSAGES = 24;
/** The message after which the channel is stopped abruptly (no grace) and started again. */
const RESTART_AFTER = 12;

/** A small seeded generator (mulberry32): the same chaos on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

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
    const random = seeded(26);
    discord = await startFakeDiscord({ heartbeatIntervalMs: 500 });
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'discord-chaos-')), 'mesh.db');
    db = openDiscordDatabase(file);
    const mesh = new FakeChannelMesh();
    // Each answer streams in two parts, so a restart or a fault can land between them.
    mesh.chat = async function* (_agent: string, request: ChannelChatRequest): AsyncIterable<ChatEvent> {
      yield { type: 'text_delta', text: `echo: ${request.message}` };
      await sleep(10 + random() * 40);
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

    const chaos: string[] = [];
    for (let index = 0; index < MESSAGES; index++) {
      await discord.waitFor(() => discord.gateway.connected, 15_000);
      const id = discord.sendDm(OWNER, `msg-${index}`);
      const roll = random();
      if (roll < 0.15) {
        chaos.push('duplicate');
        discord.replay(id);
      } else if (roll < 0.3) {
        chaos.push('drop + replay on resume');
        discord.gateway.rewindNextResume(2);
        discord.gateway.dropConnection();
      } else if (roll < 0.42) {
        // More 5xx than discord.js retries on its own: the delivery core's retry takes over.
        chaos.push('failed send');
        discord.fail('POST /channels/:id/messages', { kind: 'server-error', status: 502 }, 4);
      } else if (roll < 0.52) {
        chaos.push('failed edit');
        discord.fail('PATCH /channels/:id/messages/:id', { kind: 'server-error', status: 500 }, 4);
      } else if (roll < 0.65) {
        chaos.push('delay');
        discord.fail('*', { kind: 'delay', ms: 50 + Math.floor(random() * 150) }, 2);
      } else if (roll < 0.7) {
        chaos.push('rate limit');
        discord.fail('POST /channels/:id/messages', { kind: 'rate-limit', retryAfterSeconds: 1 });
      }
      if (index === RESTART_AFTER) {
        chaos.push('restart');
        await sleep(15);
        const stopping = channels.splice(channels.indexOf(channel), 1)[0];
        await stopping?.stop();
        channel = await start();
      }
      await sleep(random() * 30);
    }

    const repliesTo = (index: number) =>
      dm().filter((message) => new RegExp(`^echo: msg-${index}( ✓)?$`).test(message.content));
    await discord
      .waitFor(
        () =>
          Array.from({ length: MESSAGES }, (_, index) => repliesTo(index)).every((replies) =>
            replies.some((reply) => reply.content.endsWith('✓')),
          ),
        30_000,
      )
      .catch((error: unknown) => {
        const missing = Array.from({ length: MESSAGES }, (_, index) => index).filter(
          (index) => !repliesTo(index).some((reply) => reply.content.endsWith('✓')),
        );
        throw new Error(
          `${String(error)}; unanswered: ${missing.join(', ')}; chaos: ${chaos.join(', ')}; spool: ${JSON.stringify(channel.spool.counts('discord'))}; dm: ${JSON.stringify(dm().map((m) => m.content))}`,
        );
      });
    await sleep(500);
    expect(chaos).toEqual(
      expect.arrayContaining([
        'duplicate',
        'drop + replay on resume',
        'failed send',
        'failed edit',
        'delay',
        'restart',
      ]),
    );
    for (let index = 0; index < MESSAGES; index++) {
      const replies = repliesTo(index);
      expect(
        replies.map((reply) => reply.content),
        `msg-${index}`,
      ).toEqual([`echo: msg-${index} ✓`]);
    }
    expect(channel.spool.counts('discord')).toMatchObject({
      accepted: 0,
      running: 0,
      dead: 0,
      answered: MESSAGES,
    });
  }, 90_000);
});
