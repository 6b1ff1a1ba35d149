import type { Database } from '@openlegion/infra/sqlite';
import type { ChatEvent } from '@openlegion/protocol';
import { type FakeDiscord, startFakeDiscord } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDiscordDatabase } from '../../test/discord-database.js';
import { FakeChannelMesh } from '../../test/fake-channel-mesh.js';
import { DiscordChannel, type DiscordChannelOptions } from './discord-channel.js';

const OWNER = { id: '900000000000000001', username: 'ada' };
const FRIEND = { id: '900000000000000002', username: 'bob' };
const SERVER = { guildId: '800000000000000001', channelId: '800000000000000002' };
const OTHER_CHANNEL = { guildId: SERVER.guildId, channelId: '800000000000000003' };

let discord: FakeDiscord;
let mesh: FakeChannelMesh;
let db: Database;
const channels: DiscordChannel[] = [];
const logger = pino({ level: 'silent' });

async function startChannel(options: Partial<DiscordChannelOptions> = {}): Promise<DiscordChannel> {
  const channel = new DiscordChannel({
    token: discord.token,
    apiRoot: discord.apiRoot,
    gatewayUrl: discord.gatewayUrl,
    db,
    logger,
    defaultAgent: 'researcher',
    allowedChannels: [SERVER.channelId],
    editIntervalMs: 20,
    ...options,
  });
  channels.push(channel);
  await channel.start(mesh);
  return channel;
}

/** Start a channel and pair OWNER as its owner. */
async function pairedChannel(options: Partial<DiscordChannelOptions> = {}): Promise<DiscordChannel> {
  const channel = await startChannel(options);
  const code = channel.pendingPairingCode()?.code ?? '';
  discord.sendDm(OWNER, `/pair ${code}`);
  await discord.waitFor(() => dm(OWNER).some((text) => text.includes('owner')));
  return channel;
}

const dm = (user: { id: string }) =>
  discord.messagesIn(discord.dmChannelOf(user.id)).map((message) => message.content);
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

/** A mesh whose agent streams `parts` with a pause between them. */
function streaming(
  parts: string[],
  pauseMs: number,
): (agent: string, request: { message: string }) => AsyncIterable<ChatEvent> {
  return async function* () {
    for (const text of parts) {
      yield { type: 'text_delta', text };
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    yield { type: 'done', conversation_id: 'c', text: parts.join('') };
  };
}

beforeEach(async () => {
  discord = await startFakeDiscord({ heartbeatIntervalMs: 500 });
  mesh = new FakeChannelMesh();
  db = openDiscordDatabase();
});

afterEach(async () => {
  await Promise.all(channels.splice(0).map((channel) => channel.stop()));
  await discord.close();
  db.close();
});

describe('DiscordChannel pairing', () => {
  it('answers a stranger once, pairs the first user with the code as owner, then relays their DMs', async () => {
    const channel = await startChannel();
    expect(channel.status.state).toBe('ready');
    const code = channel.pendingPairingCode()?.code ?? '';
    expect(code).toMatch(/^[A-Z2-9]{8}$/);
    // IDENTIFY asked for MESSAGE_CONTENT (1 << 15), DMs and server messages.
    expect((discord.gateway.identifies[0]?.intents ?? 0) & (1 << 15)).toBeTruthy();

    discord.sendDm(OWNER, 'hello?');
    discord.sendDm(OWNER, 'anyone?');
    await discord.waitFor(() => dm(OWNER).length === 1);
    await settle();
    expect(dm(OWNER)).toEqual([expect.stringContaining('/pair CODE')]);

    discord.sendDm(OWNER, `/pair ${code}`);
    await discord.waitFor(() => dm(OWNER).length === 2);
    expect(dm(OWNER)[1]).toContain('you are the owner');
    expect(channel.pendingPairingCode()).toBeUndefined();

    discord.sendDm(OWNER, 'what is new?');
    await discord.waitFor(() => dm(OWNER).includes('echo: what is new?'));
    expect(mesh.chats).toEqual([
      {
        agent: 'researcher',
        request: expect.objectContaining({
          message: 'what is new?',
          conversation_id: `discord-${OWNER.id}`,
          mode: 'followup',
        }),
      },
    ]);
  });

  it('refuses a wrong code, locks out after five tries with one answer, and makes the second user an allowed user', async () => {
    const channel = await pairedChannel();
    for (let attempt = 0; attempt < 7; attempt++) discord.sendDm(FRIEND, '/pair WRONGCDE');
    await discord.waitFor(() => dm(FRIEND).length === 6);
    await settle();
    expect(dm(FRIEND).slice(0, 5)).toEqual(Array(5).fill('That code is not valid (wrong, used or expired).'));
    expect(dm(FRIEND)[5]).toMatch(/^Too many tries\. Wait \d+ minutes/);
    expect(channel.users.get(FRIEND.id)).toBeUndefined();
  });

  it('pairs only in a DM: /pair in a server channel is answered with where to pair', async () => {
    const channel = await startChannel();
    const code = channel.pendingPairingCode()?.code ?? '';
    discord.sendInChannel(SERVER, OWNER, `/pair ${code}`, { mention: true });
    await discord.waitFor(() => discord.messagesIn(SERVER.channelId).length === 1);
    expect(discord.messagesIn(SERVER.channelId)[0]?.content).toBe(
      'Pair in a DM with me, not in a server channel.',
    );
    expect(channel.ownerPaired()).toBe(false);
  });
});

describe('DiscordChannel chat', () => {
  it('streams a reply by editing one message', async () => {
    mesh.chat = streaming(['The answer ', 'comes ', 'in parts.'], 60) as FakeChannelMesh['chat'];
    await pairedChannel();
    discord.sendDm(OWNER, 'tell me');
    const reply = await discord.waitFor(() =>
      discord
        .messagesIn(discord.dmChannelOf(OWNER.id))
        .find((message) => message.content === 'The answer comes in parts.'),
    );
    expect(reply.history.length).toBeGreaterThan(0);
    expect(reply.history[0]).toBe('The answer');
    expect(dm(OWNER).filter((text) => text.startsWith('The answer'))).toHaveLength(1);
  });

  it('splits a reply past 2,000 characters at paragraph boundaries into further messages', async () => {
    const paragraph = (n: number) => `${`Paragraph ${n}. `.repeat(60).trim()}`;
    const long = [1, 2, 3, 4].map(paragraph).join('\n\n');
    mesh.respond = () => [
      { type: 'text_delta', text: long },
      { type: 'done', conversation_id: 'c', text: long },
    ];
    await pairedChannel();
    discord.sendDm(OWNER, 'a long one');
    await discord.waitFor(() => dm(OWNER).some((text) => text.includes('Paragraph 4.')));
    await settle();
    const parts = dm(OWNER).slice(1);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(2000);
    expect(parts.join('\n\n')).toBe(long);
    // Cut between paragraphs, never inside one.
    for (const part of parts) expect(part).toMatch(/^Paragraph \d+\./);
  });

  it('answers in a server channel only when mentioned, only in allowed_channels, quoting the message', async () => {
    await pairedChannel();
    discord.sendInChannel(SERVER, OWNER, 'not for the bot');
    discord.sendInChannel(OTHER_CHANNEL, OWNER, 'wrong channel', { mention: true });
    const asked = discord.sendInChannel(SERVER, OWNER, 'summarise the thread', { mention: true });
    await discord.waitFor(() => discord.messagesIn(SERVER.channelId).length === 1);
    await settle();
    expect(discord.messagesIn(OTHER_CHANNEL.channelId)).toEqual([]);
    const [reply] = discord.messagesIn(SERVER.channelId);
    expect(reply?.content).toBe('echo: summarise the thread');
    expect(reply?.reply_to).toBe(asked);
    expect(mesh.chats.map((chat) => chat.request.message)).toEqual(['summarise the thread']);
    expect(mesh.chats[0]?.request.conversation_id).toBe(`discord-channel${SERVER.channelId}`);
  });

  it('runs /use, /agents, /steer and /broadcast as text commands in a DM', async () => {
    await pairedChannel();
    discord.sendDm(OWNER, '/use writer');
    await discord.waitFor(() => dm(OWNER).includes('Now talking to writer.'));
    discord.sendDm(OWNER, '/agents');
    await discord.waitFor(() => dm(OWNER).some((text) => text.includes('▸ writer')));
    const agents = discord
      .messagesIn(discord.dmChannelOf(OWNER.id))
      .find((message) => message.content.includes('▸ writer'));
    expect(JSON.stringify(agents?.components)).toContain('use:researcher');
    discord.sendDm(OWNER, '/steer focus on costs');
    await discord.waitFor(() =>
      mesh.chats.some((chat) => chat.request.mode === 'steer' && chat.request.message === 'focus on costs'),
    );
    expect(mesh.chats.at(-1)?.agent).toBe('writer');
    // The steered turn ends before the broadcast, so no reply of it meets a busy agent.
    await discord.waitFor(() => dm(OWNER).includes('echo: focus on costs'));
    discord.sendDm(OWNER, '/broadcast status?');
    await discord.waitFor(() => dm(OWNER).filter((text) => text.includes('echo: status?')).length === 2);
    expect(
      dm(OWNER)
        .filter((text) => text.includes('echo: status?'))
        .sort(),
    ).toEqual(['**researcher**\n\necho: status?', '**writer**\n\necho: status?']);
  });

  it('starts a new conversation with the agent on /reset, and only with that agent', async () => {
    await pairedChannel();
    const conversationOf = (message: string) =>
      mesh.chats.find((chat) => chat.request.message === message)?.request.conversation_id;
    discord.sendDm(OWNER, 'before');
    await discord.waitFor(() => dm(OWNER).includes('echo: before'));
    discord.sendDm(OWNER, '/reset');
    await discord.waitFor(() => dm(OWNER).includes('New conversation with researcher.'));
    discord.sendDm(OWNER, 'after');
    await discord.waitFor(() => dm(OWNER).includes('echo: after'));
    discord.sendDm(OWNER, '/use writer');
    discord.sendDm(OWNER, 'to the writer');
    await discord.waitFor(() => dm(OWNER).includes('echo: to the writer'));
    expect(conversationOf('before')).toBe(`discord-${OWNER.id}`);
    expect(conversationOf('after')).toBe(`discord-${OWNER.id}-1`);
    expect(conversationOf('to the writer')).toBe(`discord-${OWNER.id}`);
  });
});

describe('DiscordChannel slash commands', () => {
  it('registers them at start and runs one like its text command, answering the interaction at once', async () => {
    await pairedChannel();
    await discord.waitFor(() => discord.registeredCommands.length === 1);
    const names = (discord.registeredCommands[0] as { name: string }[]).map((command) => command.name);
    expect(names).toEqual(expect.arrayContaining(['agents', 'use', 'steer', 'broadcast', 'pair']));
    const dmPlace = { channelId: discord.dmChannelOf(OWNER.id) };
    discord.sendSlashCommand(OWNER, dmPlace, 'use', { name: 'writer' });
    await discord.waitFor(() => dm(OWNER).includes('Now talking to writer.'));
    expect(discord.interactionCallbacks.at(-1)).toMatchObject({
      type: 4,
      data: { content: '`/use writer`' },
    });
    // Outside allowed_channels only the person who typed it hears back; a code is never echoed.
    discord.sendSlashCommand(OWNER, OTHER_CHANNEL, 'agents');
    discord.sendSlashCommand(FRIEND, dmPlace, 'pair', { code: 'ABCD2345' });
    await discord.waitFor(() => discord.interactionCallbacks.length === 3);
    expect(discord.interactionCallbacks.slice(1).map((callback) => callback.data)).toEqual([
      { content: 'I do not answer in this channel.', flags: 64 },
      { content: 'Pairing…', flags: 64 },
    ]);
    expect(discord.messagesIn(OTHER_CHANNEL.channelId)).toEqual([]);
  });
});

describe('DiscordChannel approvals', () => {
  it('offers an approval to the owner with buttons; pressing Approve decides it and removes the buttons', async () => {
    await pairedChannel();
    mesh.notify({
      text: 'approval',
      approval: {
        kind: 'tool_call',
        id: 'call-1',
        agent: 'researcher',
        tool: 'shell_exec',
        arguments_preview: '{"command":"ls"}',
        waiting_since: Date.now(),
        expires_at: Date.now() + 60_000,
      },
    });
    const offer = await discord.waitFor(() =>
      discord
        .messagesIn(discord.dmChannelOf(OWNER.id))
        .find((message) => message.content.includes('shell_exec')),
    );
    expect(JSON.stringify(offer.components)).toContain('ap:approve:call-1');
    discord.pressButton(FRIEND, offer, 'ap:approve:call-1');
    await discord.waitFor(() => discord.interactionCallbacks.length === 1);
    expect(discord.interactionCallbacks[0]).toMatchObject({
      type: 4,
      data: { content: 'You are not paired.', flags: 64 },
    });
    discord.pressButton(OWNER, offer, 'ap:approve:call-1');
    await discord.waitFor(() => mesh.decisions.length === 1);
    expect(mesh.decisions).toEqual([{ id: 'call-1', decision: 'approve' }]);
    await discord.waitFor(() => offer.components.length === 0);
    expect(offer.content).toContain("Approved: researcher's call of shell_exec.");
  });
});
