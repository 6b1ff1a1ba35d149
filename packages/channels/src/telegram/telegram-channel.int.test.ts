import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeClock } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import { OpenLegionError } from '@openlegion/protocol';
import { type FakeTelegram, startFakeTelegram } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeChannelMesh } from '../../test/fake-channel-mesh.js';
import { openTelegramDatabase } from '../../test/telegram-database.js';
import { TelegramChannel, type TelegramChannelOptions } from './telegram-channel.js';

const OWNER = { id: 4201, first_name: 'Ada' };
const FRIEND = { id: 4202, first_name: 'Bob' };
const STRANGER = { id: 4203, first_name: 'Eve' };

let telegram: FakeTelegram;
let mesh: FakeChannelMesh;
let db: Database;
const channels: TelegramChannel[] = [];
const logger = pino({ level: 'silent' });

function startChannel(options: Partial<TelegramChannelOptions> = {}): Promise<TelegramChannel> {
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
  channels.push(channel);
  return channel.start(mesh).then(() => channel);
}

const visibleTo = (chatId: number) => telegram.messagesTo(chatId).map((message) => message.visible);
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

beforeEach(async () => {
  telegram = await startFakeTelegram();
  mesh = new FakeChannelMesh();
  db = openTelegramDatabase();
});

afterEach(async () => {
  await Promise.all(channels.splice(0).map((channel) => channel.stop()));
  await telegram.close();
  db.close();
});

describe('TelegramChannel pairing', () => {
  it('answers a stranger once, pairs the first user with the code as owner, then relays their messages', async () => {
    const channel = await startChannel();
    const code = channel.pendingPairingCode()?.code ?? '';
    expect(code).toMatch(/^[A-Z2-9]{8}$/);

    telegram.sendPrivate(OWNER, 'hello?');
    telegram.sendPrivate(OWNER, 'anyone?');
    await telegram.waitFor(() => visibleTo(OWNER.id).length === 1);
    await settle();
    expect(visibleTo(OWNER.id)).toEqual([expect.stringContaining('/pair CODE')]);

    telegram.sendPrivate(OWNER, `/pair ${code}`);
    await telegram.waitFor(() => visibleTo(OWNER.id).length === 2);
    expect(visibleTo(OWNER.id)[1]).toContain('you are the owner');
    expect(channel.pendingPairingCode()).toBeUndefined();

    telegram.sendPrivate(OWNER, 'what is new?');
    await telegram.waitFor(() => visibleTo(OWNER.id).includes('echo: what is new?'));
    expect(mesh.chats).toEqual([
      {
        agent: 'researcher',
        request: expect.objectContaining({ message: 'what is new?', conversation_id: 'telegram-4201' }),
      },
    ]);
  });

  it("passes an agent's directive on as the message (/compact, /model fast), and refuses an unknown command", async () => {
    const channel = await startChannel();
    telegram.sendPrivate(OWNER, `/pair ${channel.pendingPairingCode()?.code ?? ''}`);
    await telegram.waitFor(() => visibleTo(OWNER.id).length === 1);
    telegram.sendPrivate(OWNER, '/model fast');
    await telegram.waitFor(() => mesh.chats.length === 1);
    expect(mesh.chats[0]?.request.message).toBe('/model fast');
    telegram.sendPrivate(OWNER, '/frobnicate');
    await telegram.waitFor(() => visibleTo(OWNER.id).some((text) => text.startsWith('Unknown command')));
    expect(mesh.chats).toHaveLength(1);
  });

  it('refuses a wrong code and a reused one, and pairs a second user as allowed with a new code', async () => {
    const channel = await startChannel();
    const first = channel.createPairingCode().code;
    telegram.sendPrivate(OWNER, `/pair ${first}`);
    await telegram.waitFor(() => channel.ownerPaired());

    telegram.sendPrivate(FRIEND, '/pair ABCDEFGH');
    telegram.sendPrivate(FRIEND, `/pair ${first}`);
    await telegram.waitFor(() => visibleTo(FRIEND.id).length === 2);
    expect(visibleTo(FRIEND.id)).toEqual([
      expect.stringContaining('not valid'),
      expect.stringContaining('not valid'),
    ]);
    expect(channel.users.get(FRIEND.id)).toBeUndefined();

    const second = channel.createPairingCode().code;
    telegram.sendPrivate(FRIEND, `/pair ${second}`);
    await telegram.waitFor(() => channel.users.get(FRIEND.id));
    expect(channel.users.get(FRIEND.id)?.role).toBe('allowed');
  });

  it('never pairs a flood of attempts, even when the right code comes late, and answers it a few times only', async () => {
    const channel = await startChannel();
    const code = channel.createPairingCode().code;
    for (let index = 0; index < 15; index++)
      telegram.sendPrivate(STRANGER, `/pair WRONG${index}XY`.slice(0, 14));
    telegram.sendPrivate(STRANGER, `/pair ${code}`);
    await telegram.waitFor(() => telegram.pendingUpdates().length === 0 || undefined);
    await settle();
    expect(channel.users.get(STRANGER.id)).toBeUndefined();
    expect(visibleTo(STRANGER.id).length).toBe(6);
    expect(visibleTo(STRANGER.id).at(-1)).toContain('Too many tries');
    // The code was not used up by the refused try: the owner can still pair with it.
    telegram.sendPrivate(OWNER, `/pair ${code}`);
    await telegram.waitFor(() => channel.ownerPaired());
  });

  it('forwards nothing from a revoked user', async () => {
    const channel = await startChannel();
    channel.users.pair(OWNER.id, 'Ada', Date.now());
    channel.users.pair(FRIEND.id, 'Bob', Date.now());
    telegram.sendPrivate(OWNER, `/revoke ${FRIEND.id}`);
    await telegram.waitFor(() => visibleTo(OWNER.id).some((text) => text.includes('no longer paired')));
    telegram.sendPrivate(FRIEND, 'still there?');
    telegram.sendPrivate(FRIEND, 'hello?');
    await telegram.waitFor(() => visibleTo(FRIEND.id).length === 1);
    await settle();
    expect(mesh.chats).toEqual([]);
    expect(visibleTo(FRIEND.id)).toEqual([expect.stringContaining('/pair CODE')]);
  });

  it('keeps pairings and the update offset across a restart over the same database file', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'telegram-restart-')), 'mesh.db');
    db.close();
    db = openTelegramDatabase(file);
    const first = await startChannel();
    telegram.sendPrivate(OWNER, `/pair ${first.createPairingCode().code}`);
    await telegram.waitFor(() => first.ownerPaired());
    telegram.sendPrivate(OWNER, 'before');
    await telegram.waitFor(() => visibleTo(OWNER.id).includes('echo: before'));
    await first.stop();
    db.close();

    db = openTelegramDatabase(file);
    const second = await startChannel();
    expect(second.pendingPairingCode()).toBeUndefined();
    telegram.sendPrivate(OWNER, 'after');
    await telegram.waitFor(() => visibleTo(OWNER.id).includes('echo: after'));
    expect(mesh.chats.map((chat) => chat.request.message)).toEqual(['before', 'after']);
  });
});

describe('TelegramChannel commands', () => {
  it('refuses owner commands to an allowed user and runs none of them', async () => {
    const channel = await startChannel();
    channel.users.pair(OWNER.id, 'Ada', Date.now());
    channel.users.pair(FRIEND.id, 'Bob', Date.now());
    for (const command of [
      '/allow 77',
      '/revoke 4201',
      '/paired',
      '/steer faster',
      '/broadcast hi',
      '/reset',
      '/debug',
    ]) {
      telegram.sendPrivate(FRIEND, command);
    }
    await telegram.waitFor(() => visibleTo(FRIEND.id).length === 7);
    for (const text of visibleTo(FRIEND.id)) expect(text).toMatch(/^Only the owner can use \/\w+\.$/);
    expect(channel.users.get(77)).toBeUndefined();
    expect(channel.users.owner()?.userId).toBe(OWNER.id);
    expect(mesh.chats).toEqual([]);
  });

  it('switches agent with /use and the /agents buttons, resets the conversation, steers and broadcasts', async () => {
    const channel = await startChannel();
    channel.users.pair(OWNER.id, 'Ada', Date.now());
    telegram.sendPrivate(OWNER, '/use writer');
    telegram.sendPrivate(OWNER, 'draft it');
    await telegram.waitFor(() => mesh.chats.length === 1);
    expect(mesh.chats[0]).toMatchObject({ agent: 'writer', request: { conversation_id: 'telegram-4201' } });

    telegram.sendPrivate(OWNER, '/agents');
    const list = await telegram.waitFor(() =>
      telegram.messagesTo(OWNER.id).find((message) => message.visible.includes('▸ writer')),
    );
    telegram.pressButton(OWNER, list.message_id, 'use:researcher');
    await telegram.waitFor(() => telegram.answeredCallbacks.length === 1);
    expect(telegram.answeredCallbacks[0]?.text).toBe('Now talking to researcher.');

    telegram.sendPrivate(OWNER, '/reset');
    telegram.sendPrivate(OWNER, '/steer focus on 2024');
    telegram.sendPrivate(OWNER, '/broadcast status?');
    await telegram.waitFor(() => mesh.chats.length === 4);
    expect(mesh.chats.slice(1)).toEqual([
      {
        agent: 'researcher',
        request: expect.objectContaining({
          message: 'focus on 2024',
          mode: 'steer',
          conversation_id: 'telegram-4201-1',
        }),
      },
      { agent: 'researcher', request: expect.objectContaining({ message: 'status?' }) },
      {
        agent: 'writer',
        request: expect.objectContaining({ message: 'status?', conversation_id: 'telegram-4201' }),
      },
    ]);
    await telegram.waitFor(() => visibleTo(OWNER.id).some((text) => text === 'writer\n\necho: status?'));
  });

  it('refuses a message that looks like a key and does not forward it', async () => {
    const channel = await startChannel();
    channel.users.pair(OWNER.id, 'Ada', Date.now());
    telegram.sendPrivate(OWNER, 'use this: sk-proj-abcdefghijklmnopqrstuvwxyz0123456789');
    await telegram.waitFor(() => visibleTo(OWNER.id).length === 1);
    expect(visibleTo(OWNER.id)[0]).toContain('looks like an API key');
    expect(mesh.chats).toEqual([]);
  });
});

describe('TelegramChannel replies', () => {
  it('splits a long reply into messages Telegram accepts, with <, & and code escaped', async () => {
    const channel = await startChannel();
    channel.users.pair(OWNER.id, 'Ada', Date.now());
    const paragraph = (index: number) =>
      `Paragraph ${index}: a < b && c > d, see \`x<y>\`. ${'word '.repeat(150)}`;
    const text = [
      ...Array.from({ length: 12 }, (_, index) => paragraph(index)),
      '```html\n<p>&amp;</p>\n```',
    ].join('\n\n');
    mesh.respond = (_agent, request) => [
      { type: 'done', conversation_id: request.conversation_id ?? '', text },
    ];
    telegram.sendPrivate(OWNER, 'write a lot');
    await telegram.waitFor(() => visibleTo(OWNER.id).join('').includes('<p>&amp;</p>'));
    const messages = telegram.messagesTo(OWNER.id);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    for (const message of messages) expect(message.visible.length).toBeLessThanOrEqual(4096);
    expect(messages[0]?.text).toContain('a &lt; b &amp;&amp; c &gt; d');
    expect(messages[0]?.text).toContain('<code>x&lt;y&gt;</code>');
    expect(messages.at(-1)?.text).toContain(
      '<pre><code class="language-html">&lt;p&gt;&amp;amp;&lt;/p&gt;</code></pre>',
    );
    // Every paragraph arrives once, in order.
    const visible = messages.map((message) => message.visible).join('\n\n');
    const order = Array.from({ length: 12 }, (_, index) => visible.indexOf(`Paragraph ${index}:`));
    expect(order.every((at, index) => at >= 0 && (index === 0 || at > (order[index - 1] ?? 0)))).toBe(true);
    expect(visible.split('Paragraph 3:').length).toBe(2);
  });

  it("tells the user an agent is over its budget in the mesh's own words", async () => {
    const channel = await startChannel();
    channel.users.pair(OWNER.id, 'Ada', Date.now());
    mesh.respond = () => {
      throw new OpenLegionError('BUDGET_EXCEEDED', 'agent "researcher" has spent its daily budget of $5');
    };
    telegram.sendPrivate(OWNER, 'one more thing');
    await telegram.waitFor(() => visibleTo(OWNER.id).length === 1);
    expect(visibleTo(OWNER.id)).toEqual([
      '⚠ researcher is over its budget: agent "researcher" has spent its daily budget of $5',
    ]);
  });

  it('answers in a group only when allowed and mentioned or replied to', async () => {
    const group = { id: -1001 };
    const channel = await startChannel({ allowGroups: true });
    channel.users.pair(OWNER.id, 'Ada', Date.now());
    telegram.sendGroup(group, OWNER, 'just chatting among ourselves');
    telegram.sendGroup(group, OWNER, `@${telegram.bot.username} summarise this`);
    await telegram.waitFor(() => visibleTo(group.id).includes('echo: summarise this'));
    const reply = telegram.messagesTo(group.id)[0];
    telegram.sendGroup(group, OWNER, 'and more', { replyTo: reply?.message_id });
    await telegram.waitFor(() => visibleTo(group.id).includes('echo: and more'));
    expect(mesh.chats.map((chat) => chat.request.message)).toEqual(['summarise this', 'and more']);
  });

  it("gives a group its own conversation, apart from its members' private ones, and /reset there resets only the group's", async () => {
    const group = { id: -1001 };
    const channel = await startChannel({ allowGroups: true });
    channel.users.pair(OWNER.id, 'Ada', Date.now());
    channel.users.pair(FRIEND.id, 'Bob', Date.now());
    const mention = `@${telegram.bot.username}`;
    const conversationOf = (message: string) =>
      mesh.chats.find((chat) => chat.request.message === message)?.request.conversation_id;

    telegram.sendGroup(group, OWNER, `${mention} group plans`);
    await telegram.waitFor(() => mesh.chats.length === 1);
    telegram.sendGroup(group, FRIEND, `${mention} more group plans`);
    await telegram.waitFor(() => mesh.chats.length === 2);
    telegram.sendPrivate(OWNER, 'my private note');
    await telegram.waitFor(() => mesh.chats.length === 3);
    telegram.sendGroup(group, OWNER, `/reset${mention}`);
    await telegram.waitFor(() => visibleTo(group.id).includes('New conversation with researcher.'));
    telegram.sendGroup(group, OWNER, `${mention} after the reset`);
    await telegram.waitFor(() => mesh.chats.length === 4);
    telegram.sendPrivate(OWNER, 'still private');
    await telegram.waitFor(() => mesh.chats.length === 5);

    expect(
      ['group plans', 'more group plans', 'my private note', 'after the reset', 'still private'].map(
        conversationOf,
      ),
    ).toEqual([
      'telegram-group-1001',
      'telegram-group-1001',
      'telegram-4201',
      'telegram-group-1001-1',
      'telegram-4201',
    ]);
  });

  it('ignores groups when they are not allowed', async () => {
    const channel = await startChannel({ allowGroups: false });
    channel.users.pair(OWNER.id, 'Ada', Date.now());
    telegram.sendGroup({ id: -1002 }, OWNER, `@${telegram.bot.username} hello`);
    telegram.sendPrivate(OWNER, 'private hello');
    await telegram.waitFor(() => visibleTo(OWNER.id).includes('echo: private hello'));
    expect(visibleTo(-1002)).toEqual([]);
    expect(mesh.chats.map((chat) => chat.request.message)).toEqual(['private hello']);
  });
});

describe('TelegramChannel start', () => {
  it('fails with CHAN_TOKEN_REJECTED when Telegram answers getMe with 401', async () => {
    const channel = new TelegramChannel({ token: '999:wrong', apiRoot: telegram.url, db, logger });
    await expect(channel.start(mesh)).rejects.toMatchObject({
      code: 'CHAN_TOKEN_REJECTED',
      message: expect.stringContaining('rejected the bot token'),
    });
    expect(telegram.calls.map((call) => [call.method, call.status])).toEqual([['getMe', 401]]);
    await channel.stop();
  });

  it('fails with CHAN_UNREACHABLE after three tries when Telegram keeps answering 5xx', async () => {
    const clock = new FakeClock(0);
    telegram.fail('getMe', { kind: 'server-error', status: 502 }, 3);
    const channel = new TelegramChannel({ token: telegram.token, apiRoot: telegram.url, db, logger, clock });
    let outcome: unknown;
    channel.start(mesh).catch((error: unknown) => {
      outcome = error;
    });
    for (let round = 0; round < 200 && outcome === undefined; round++) {
      await clock.advance(250);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(outcome).toMatchObject({ code: 'CHAN_UNREACHABLE', retryable: true });
    expect(telegram.calls.map((call) => call.status)).toEqual([502, 502, 502]);
    await channel.stop();
  });
});
