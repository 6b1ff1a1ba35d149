import { systemClock } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import type { PendingApproval } from '@openlegion/protocol';
import { type FakeSlack, startFakeSlack } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatedChannelMesh } from '../../test/gated-channel-mesh.js';
import { openSlackDatabase } from '../../test/slack-database.js';
import { ChannelRegistry } from '../core/channel-registry.js';
import { ChannelStatusBoard } from '../core/channel-status.js';
import { APPROVE_ACTION, REJECT_ACTION } from './slack-approvals.js';
import { SlackChannel, type SlackChannelOptions } from './slack-channel.js';
import { SLACK_HOW_TO_PAIR } from './slack-handler.js';

const OWNER = { id: 'U0ADA' };
const FRIEND = { id: 'U0BOB' };
const STRANGER = { id: 'U0EVE' };

let slack: FakeSlack;
let mesh: GatedChannelMesh;
let db: Database;
const channels: SlackChannel[] = [];
const logger = pino({ level: process.env.SLACK_TEST_LOG ?? 'silent' });

function startChannel(options: Partial<SlackChannelOptions> = {}): Promise<SlackChannel> {
  const channel = new SlackChannel({
    botToken: slack.botToken,
    appToken: slack.appToken,
    apiRoot: slack.url,
    db,
    logger,
    defaultAgent: 'researcher',
    editIntervalMs: 20,
    reconnectDelayMs: 300,
    ...options,
  });
  channels.push(channel);
  return channel.start(mesh).then(() => channel);
}

/** A started channel with OWNER paired (and FRIEND allowed), as after `!pair`. */
async function pairedChannel(options: Partial<SlackChannelOptions> = {}): Promise<SlackChannel> {
  const channel = await startChannel(options);
  for (const [person, name] of [
    [OWNER, 'Ada'],
    [FRIEND, 'Bob'],
  ] as const) {
    channel.users.pair(person.id, name, Date.now());
    channel.users.setConversation(person.id, slack.dmOf(person));
  }
  return channel;
}

const textsIn = (channel: string) => slack.messagesIn(channel).map((message) => message.text);
const callsOf = (method: string) => slack.calls.filter((call) => call.method === method);
const settle = (ms = 150) => new Promise((resolve) => setTimeout(resolve, ms));
const unescaped = SLACK_HOW_TO_PAIR.replace(/\\(.)/g, '$1');

beforeEach(async () => {
  slack = await startFakeSlack({ memberOf: ['C0ALLOWED', 'C0OTHER'] });
  mesh = new GatedChannelMesh();
  db = openSlackDatabase();
});

afterEach(async () => {
  await Promise.all(channels.splice(0).map((channel) => channel.stop()));
  await slack.close();
  db.close();
});

describe('SlackChannel pairing and chat', () => {
  it('answers a stranger once, pairs the first person with the code as owner, then relays their DMs', async () => {
    const channel = await startChannel();
    expect(channel.status()).toEqual({ state: 'connected' });
    // What `openlegion status` reads from mesh.db in another process.
    expect(new ChannelStatusBoard(db, systemClock).all()).toMatchObject([
      { channel: 'slack', state: 'connected' },
    ]);
    const code = channel.pendingPairingCode()?.code ?? '';
    expect(code).toMatch(/^[A-Z2-9]{8}$/);
    const dm = slack.dmOf(OWNER);

    slack.sendDm(OWNER, 'hello?');
    slack.sendDm(OWNER, 'anyone?');
    await slack.waitFor(() => textsIn(dm).length === 1);
    await settle();
    expect(textsIn(dm)).toEqual([unescaped]);

    slack.sendDm(OWNER, `!pair ${code.toLowerCase()}`);
    await slack.waitFor(() => textsIn(dm).length === 2);
    expect(textsIn(dm)[1]).toContain('you are the owner');
    expect(channel.pendingPairingCode()).toBeUndefined();

    slack.sendDm(OWNER, 'what is new?');
    await slack.waitFor(() => textsIn(dm).includes('echo: what is new?'));
    expect(mesh.chats).toEqual([
      {
        agent: 'researcher',
        request: expect.objectContaining({ message: 'what is new?', conversation_id: 'slack-U0ADA' }),
      },
    ]);
    expect(slack.envelopes.every((envelope) => envelope.acked)).toBe(true);
  });

  it('refuses a wrong code, then locks the sender out after five tries with one answer', async () => {
    await startChannel();
    const dm = slack.dmOf(STRANGER);
    slack.sendDm(STRANGER, '!pair ABCD2345');
    await slack.waitFor(() => textsIn(dm).length === 1);
    expect(textsIn(dm)[0]).toBe('That code is not valid (wrong, used or expired).');
    for (let attempt = 0; attempt < 6; attempt++) slack.sendDm(STRANGER, '/pair ABCD2345');
    await slack.waitFor(() => textsIn(dm).some((text) => text.startsWith('Too many tries')));
    await settle();
    expect(textsIn(dm).filter((text) => text.startsWith('Too many tries'))).toEqual([
      'Too many tries. Wait 10 minutes before the next one.',
    ]);
    expect(mesh.chats).toEqual([]);
  });

  it('streams a reply by editing one message', async () => {
    await pairedChannel();
    mesh.streamParts(['Hello', ', world', '. Done.']);
    const dm = slack.dmOf(OWNER);
    slack.sendDm(OWNER, 'greet me');
    for (let step = 0; step < 3; step++) {
      await slack.waitFor(() => mesh.chats.length === 1);
      mesh.release();
      await settle(60);
    }
    await slack.waitFor(() => textsIn(dm).includes('Hello, world. Done.'));
    expect(slack.messagesIn(dm)).toHaveLength(1);
    expect(callsOf('chat.postMessage')).toHaveLength(1);
    expect(slack.messagesIn(dm)[0]?.edits).toEqual(['Hello', 'Hello, world']);
  });

  it('splits a reply past 40,000 characters at a paragraph, each message within the limit', async () => {
    await pairedChannel();
    const first = 'a'.repeat(25_000);
    const second = 'b'.repeat(25_000);
    mesh.respond = (_agent, request) => [
      { type: 'text_delta', text: `${first}\n\n${second}` },
      { type: 'done', conversation_id: request.conversation_id ?? 'x', text: '' },
    ];
    const dm = slack.dmOf(OWNER);
    slack.sendDm(OWNER, 'write a lot');
    await slack.waitFor(() => textsIn(dm).length === 2);
    await settle();
    expect(textsIn(dm)).toEqual([first, second]);
  });

  it('answers in channels only when mentioned, only in allowed channels, in the thread', async () => {
    await pairedChannel({ allowedChannels: ['C0ALLOWED'] });
    slack.sendChannelMessage('C0ALLOWED', OWNER, 'no mention here');
    slack.mention('C0OTHER', OWNER, 'not an allowed channel');
    const asked = slack.mention('C0ALLOWED', OWNER, 'summarise the thread');
    await slack.waitFor(() => textsIn('C0ALLOWED').length === 1);
    await settle();
    const reply = slack.messagesIn('C0ALLOWED')[0];
    expect(reply).toMatchObject({
      text: 'echo: summarise the thread',
      thread_ts: (asked.payload.event as { ts: string }).ts,
    });
    expect(textsIn('C0OTHER')).toEqual([]);
    expect(mesh.chats.map((chat) => chat.request)).toEqual([
      expect.objectContaining({ message: 'summarise the thread', conversation_id: 'slack-channelC0ALLOWED' }),
    ]);
  });

  it('runs the text commands: !agents, !use, !steer and !broadcast (the last two for the owner only)', async () => {
    await pairedChannel();
    const dm = slack.dmOf(OWNER);
    slack.sendDm(OWNER, '!agents');
    await slack.waitFor(() => textsIn(dm).length === 1);
    expect(textsIn(dm)[0]).toBe('▸ researcher (ready)\n• writer (ready)\nSwitch with `!use NAME`.');
    slack.sendDm(OWNER, '/use writer');
    await slack.waitFor(() => textsIn(dm).includes('Now talking to writer.'));
    slack.sendDm(OWNER, '!steer shorter please');
    await slack.waitFor(() => mesh.chats.length === 1);
    expect(mesh.chats[0]).toMatchObject({
      agent: 'writer',
      request: { message: 'shorter please', mode: 'steer' },
    });
    slack.sendDm(OWNER, '!broadcast status?');
    await slack.waitFor(() => textsIn(dm).filter((text) => text.includes('echo: status?')).length === 2);
    expect(textsIn(dm)).toEqual(
      expect.arrayContaining(['*researcher*\n\necho: status?', '*writer*\n\necho: status?']),
    );
    const friendDm = slack.dmOf(FRIEND);
    slack.sendDm(FRIEND, '!broadcast hi all');
    await slack.waitFor(() => textsIn(friendDm).length === 1);
    expect(textsIn(friendDm)).toEqual(['Only the owner can use !broadcast.']);
  });

  it('starts a new conversation with the agent on !reset', async () => {
    await pairedChannel();
    const dm = slack.dmOf(OWNER);
    const conversationOf = (message: string) =>
      mesh.chats.find((chat) => chat.request.message === message)?.request.conversation_id;
    slack.sendDm(OWNER, 'before');
    await slack.waitFor(() => textsIn(dm).includes('echo: before'));
    slack.sendDm(OWNER, '!reset');
    await slack.waitFor(() => textsIn(dm).includes('New conversation with researcher.'));
    slack.sendDm(OWNER, 'after');
    await slack.waitFor(() => textsIn(dm).includes('echo: after'));
    expect(conversationOf('before')).toBe(`slack-${OWNER.id}`);
    expect(conversationOf('after')).toBe(`slack-${OWNER.id}-1`);
  });
});

describe('SlackChannel when the agent is busy', () => {
  it('steers the running turn with a second message by default, with a short note', async () => {
    await pairedChannel();
    mesh.streamParts(['Working', ' on it.']);
    const dm = slack.dmOf(OWNER);
    slack.sendDm(OWNER, 'write the report');
    await slack.waitFor(() => mesh.chats.length === 1);
    slack.sendDm(OWNER, 'make it short');
    await slack.waitFor(() => mesh.chats.length === 2);
    expect(mesh.chats.map((chat) => chat.request.mode)).toEqual(['followup', 'steer']);
    for (let step = 0; step < 4; step++) mesh.release();
    await slack.waitFor(() => textsIn(dm).filter((text) => text.includes('Working on it.')).length === 2);
    expect(textsIn(dm).find((text) => text.includes('redirecting'))).toBeDefined();
  });

  it('queues it instead with when_busy: queue', async () => {
    await pairedChannel({ whenBusy: 'queue' });
    slack.sendDm(OWNER, 'first');
    slack.sendDm(OWNER, 'second');
    await slack.waitFor(() => textsIn(slack.dmOf(OWNER)).length === 2);
    expect(mesh.chats.map((chat) => chat.request.mode)).toEqual(['followup', 'followup']);
  });
});

describe('SlackChannel mirroring', () => {
  it('with mirror: true, copies an agent reply to the owner on the other channels, and takes their copies in', async () => {
    const registry = new ChannelRegistry(logger);
    const told: string[] = [];
    registry.register({
      name: 'telegram',
      mirror: true,
      tellOwner: async (markdown) => told.push(markdown) > 0,
    });
    await pairedChannel({ mirror: true, registry });
    slack.sendDm(OWNER, 'mirror me');
    await slack.waitFor(() => told.length === 1);
    expect(told[0]).toContain('echo: mirror me');
    expect(told[0]).toContain('on slack');
    await registry.mirrorReply('telegram', 'writer', 'from telegram');
    await slack.waitFor(() => textsIn(slack.dmOf(OWNER)).some((text) => text.includes('from telegram')));
  });
});

describe('SlackChannel approvals', () => {
  const approval: PendingApproval = {
    kind: 'workflow_step',
    id: 'run-m1x-a1b2c3:review',
    run: 'run-m1x-a1b2c3',
    workflow: 'publish',
    step: 'review',
    waiting_since: 1,
  };

  it('offers an approval to the owner with buttons; a press by the owner decides it and removes the buttons', async () => {
    await pairedChannel();
    const dm = slack.dmOf(OWNER);
    mesh.notify({ text: 'step review waits', approval });
    const offered = await slack.waitFor(() => slack.messagesIn(dm)[0]);
    expect(offered.text).toContain('step *review* waits for your approval');
    expect(offered.blocks).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: offered.text } },
      expect.objectContaining({
        type: 'actions',
        elements: [
          expect.objectContaining({ action_id: APPROVE_ACTION, value: approval.id }),
          expect.objectContaining({ action_id: REJECT_ACTION, value: approval.id }),
        ],
      }),
    ]);
    expect(slack.messagesIn(slack.dmOf(FRIEND))).toEqual([]);

    slack.pressButton(FRIEND, offered, APPROVE_ACTION, approval.id);
    await settle();
    expect(mesh.decisions).toEqual([]);
    slack.pressButton(OWNER, offered, APPROVE_ACTION, approval.id);
    await slack.waitFor(() => offered.text.startsWith('Approved'));
    expect(offered.text).toBe('Approved: review of run-m1x-a1b2c3.');
    expect(offered.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: offered.text } }]);
    expect(mesh.decisions).toEqual([{ id: approval.id, decision: 'approve' }]);
    expect(slack.envelopes.filter((envelope) => envelope.type === 'interactive').every((e) => e.acked)).toBe(
      true,
    );
  });
});

describe('SlackChannel bad input', () => {
  it('fails with CHAN_TOKEN_REJECTED naming the bot token when Slack answers invalid_auth', async () => {
    const channel = new SlackChannel({
      botToken: 'xoxb-wrong',
      appToken: slack.appToken,
      apiRoot: slack.url,
      db,
      logger,
    });
    await expect(channel.start(mesh)).rejects.toMatchObject({
      code: 'CHAN_TOKEN_REJECTED',
      message: 'Slack refused the bot token (invalid_auth); check channels.slack.bot_token (xoxb-…)',
    });
    expect(channel.status()).toEqual({ state: 'failed', problem: expect.stringContaining('invalid_auth') });
    expect(new ChannelStatusBoard(db, systemClock).all()).toMatchObject([
      { channel: 'slack', state: 'token_rejected', detail: expect.stringContaining('bot token') },
    ]);
  });

  it('fails with CHAN_TOKEN_REJECTED naming the app-level token, leaving no socket open', async () => {
    const channel = new SlackChannel({
      botToken: slack.botToken,
      appToken: 'xapp-wrong',
      apiRoot: slack.url,
      db,
      logger,
    });
    await expect(channel.start(mesh)).rejects.toMatchObject({
      code: 'CHAN_TOKEN_REJECTED',
      message: 'Slack refused the app-level token (invalid_auth); check channels.slack.app_token (xapp-…)',
    });
    await settle(400);
    expect(slack.connections()).toBe(0);
    expect(callsOf('apps.connections.open')).toHaveLength(1);
  });

  it('fails with CHAN_SCOPE_MISSING naming the scope the bot token lacks', async () => {
    await slack.close();
    slack = await startFakeSlack({ scopes: ['app_mentions:read', 'im:history'] });
    const channel = new SlackChannel({
      botToken: slack.botToken,
      appToken: slack.appToken,
      apiRoot: slack.url,
      db,
      logger,
    });
    await expect(channel.start(mesh)).rejects.toMatchObject({
      code: 'CHAN_SCOPE_MISSING',
      message:
        'the Slack app lacks the bot scope chat:write: add it under OAuth & Permissions, then reinstall the app',
    });
  });

  it('logs a reply refused with missing_scope into the status, without a crash or a retry', async () => {
    const channel = await pairedChannel();
    slack.fail('chat.postMessage', { error: 'missing_scope', needed: 'chat:write' });
    slack.sendDm(OWNER, 'hello');
    await slack.waitFor(() => channel.status().problem);
    expect(channel.status()).toEqual({
      state: 'connected',
      problem: 'the Slack app lacks the bot scope chat:write: add it and reinstall the app',
    });
    expect(callsOf('chat.postMessage')).toHaveLength(1);
    slack.sendDm(OWNER, 'again');
    await slack.waitFor(() => textsIn(slack.dmOf(OWNER)).includes('echo: again'));
  });

  it('does not retry a reply in a channel the bot is not in (not_in_channel), and goes on answering elsewhere', async () => {
    const channel = await pairedChannel({ allowedChannels: ['C0NOTMEMBER'] });
    slack.mention('C0NOTMEMBER', OWNER, 'hello there');
    await slack.waitFor(() => channel.status().problem);
    await settle(200);
    expect(channel.status().problem).toBe('the bot is not in channel C0NOTMEMBER: invite it (/invite @bot)');
    expect(callsOf('chat.postMessage')).toHaveLength(1);
    slack.sendDm(OWNER, 'still there?');
    await slack.waitFor(() => textsIn(slack.dmOf(OWNER)).includes('echo: still there?'));
  });

  it('waits out a 429 for the Retry-After Slack sends, then writes the reply once', async () => {
    await pairedChannel();
    slack.fail('chat.postMessage', { status: 429, retryAfterSeconds: 1 });
    const sentAt = Date.now();
    slack.sendDm(OWNER, 'busy?');
    await slack.waitFor(() => textsIn(slack.dmOf(OWNER)).includes('echo: busy?'), 8_000);
    const [refused, accepted] = callsOf('chat.postMessage');
    expect((accepted?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1_000);
    expect(slack.messagesIn(slack.dmOf(OWNER))).toHaveLength(1);
  });

  it('keeps one reply when the socket is refreshed mid-stream and Slack replays the event', async () => {
    await pairedChannel();
    mesh.streamParts(['First half', ' and second half.']);
    const dm = slack.dmOf(OWNER);
    const asked = slack.sendDm(OWNER, 'long task');
    await slack.waitFor(() => mesh.chats.length === 1);
    mesh.release();
    await slack.waitFor(() => textsIn(dm).includes('First half'));
    slack.disconnect('refresh_requested');
    await slack.waitFor(() => slack.connections() === 2 && slack.connected(), 5_000);
    const replayed = slack.replay(asked);
    expect(replayed.payload).toBe(asked.payload);
    await slack.waitFor(() => replayed.acked);
    mesh.release();
    await slack.waitFor(() => textsIn(dm).includes('First half and second half.'));
    await settle();
    expect(slack.messagesIn(dm)).toHaveLength(1);
    expect(mesh.chats).toHaveLength(1);
  });

  it('keeps one reply when the connection drops without a word and the event comes again', async () => {
    await pairedChannel();
    const dm = slack.dmOf(OWNER);
    const asked = slack.sendDm(OWNER, 'are you there?');
    await slack.waitFor(() => textsIn(dm).includes('echo: are you there?'));
    slack.dropConnection();
    const replayed = slack.replay(asked, 'connection_lost');
    await slack.waitFor(() => replayed.acked, 5_000);
    await settle();
    expect(textsIn(dm)).toEqual(['echo: are you there?']);
    expect(slack.connections()).toBe(2);
  });

  it('takes an event Slack retries (same event_id, retry_attempt 1) in once, also after a restart', async () => {
    const channel = await pairedChannel();
    const dm = slack.dmOf(OWNER);
    const asked = slack.sendDm(OWNER, 'once only');
    await slack.waitFor(() => textsIn(dm).includes('echo: once only'));
    const retry = slack.replay(asked);
    expect(retry.retry_attempt).toBe(1);
    await slack.waitFor(() => retry.acked);
    await channel.stop();
    await startChannel();
    const again = slack.replay(retry);
    await slack.waitFor(() => again.acked);
    await settle();
    expect(textsIn(dm)).toEqual(['echo: once only']);
    expect(mesh.chats).toHaveLength(1);
  });
});
