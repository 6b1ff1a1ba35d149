import type { Database } from '@openlegion/infra/sqlite';
import type { PendingApproval } from '@openlegion/protocol';
import { type FakeTelegram, startFakeTelegram } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeChannelMesh } from '../../test/fake-channel-mesh.js';
import { openTelegramDatabase } from '../../test/telegram-database.js';
import { TelegramChannel, type TelegramChannelOptions } from './telegram-channel.js';

const OWNER = { id: 4201, first_name: 'Ada' };
const FRIEND = { id: 4202, first_name: 'Bob' };

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

describe('TelegramChannel approvals', () => {
  const approval = (step: string): PendingApproval => ({
    kind: 'workflow_step',
    id: `run-m1x-a1b2c3:${step}`,
    run: 'run-m1x-a1b2c3',
    workflow: 'publish',
    step,
    waiting_since: 1,
  });

  it('offers a waiting step to the owner with buttons; approve by button, reject by command, never by others', async () => {
    const channel = await startChannel();
    channel.users.pair(OWNER.id, 'Ada', Date.now());
    channel.users.pair(FRIEND.id, 'Bob', Date.now());
    mesh.notify({ text: 'step review waits', approval: approval('review') });
    const offered = await telegram.waitFor(() =>
      telegram.messagesTo(OWNER.id).find((message) => message.visible.includes('waits for your approval')),
    );
    expect(offered.visible).toContain('step review waits for your approval (/approve run-m1x-a1b2c3:review)');
    expect(telegram.messagesTo(FRIEND.id)).toHaveLength(0);

    telegram.pressButton(FRIEND, offered.message_id, 'wf:approve:run-m1x-a1b2c3:review');
    await telegram.waitFor(() => telegram.answeredCallbacks.length === 1);
    expect(telegram.answeredCallbacks[0]?.text).toBe('Only the owner can approve.');
    telegram.pressButton(OWNER, offered.message_id, 'wf:approve:run-m1x-a1b2c3:review');
    await telegram.waitFor(() => telegram.answeredCallbacks.length === 2);
    expect(telegram.answeredCallbacks[1]?.text).toBe('Approved: review of run-m1x-a1b2c3.');
    telegram.pressButton(OWNER, offered.message_id, 'wf:approve:run-m1x-a1b2c3:review');
    await telegram.waitFor(() => telegram.answeredCallbacks.length === 3);
    expect(telegram.answeredCallbacks[2]?.text).toBe(
      'Not done: nothing waits for approval under "run-m1x-a1b2c3:review"',
    );

    mesh.notify({ text: 'step publish waits', approval: approval('publish') });
    telegram.sendPrivate(FRIEND, '/reject run-m1x-a1b2c3 publish');
    telegram.sendPrivate(OWNER, '/approvals');
    await telegram.waitFor(
      () =>
        telegram.messagesTo(OWNER.id).filter((message) => message.visible.includes('step publish')).length ===
        2,
    );
    telegram.sendPrivate(OWNER, '/reject run-m1x-a1b2c3 publish too early');
    await telegram.waitFor(() => visibleTo(OWNER.id).includes('Rejected: publish of run-m1x-a1b2c3.'));
    expect(mesh.decisions).toEqual([
      { id: 'run-m1x-a1b2c3:review', decision: 'approve' },
      { id: 'run-m1x-a1b2c3:publish', decision: 'reject', note: 'too early' },
    ]);
    expect(visibleTo(FRIEND.id)).toEqual(['Only the owner can use /reject.']);
    telegram.sendPrivate(OWNER, '/approvals');
    await telegram.waitFor(() => visibleTo(OWNER.id).includes('Nothing waits for approval.'));
  });

  it('offers a tool call that asks first with buttons by id, its arguments escaped, and approves it', async () => {
    const channel = await startChannel();
    channel.users.pair(OWNER.id, 'Ada', Date.now());
    const id = `ap-${'0'.repeat(32)}`;
    mesh.notify({
      text: 'a tool call waits',
      approval: {
        kind: 'tool_call',
        id,
        waiting_since: 1,
        expires_at: 600_001,
        agent: 'writer',
        tool: 'github__create_issue',
        arguments_preview: '{"title":"*bold* [x](y)"}',
      },
    });
    const offered = await telegram.waitFor(() =>
      telegram.messagesTo(OWNER.id).find((message) => message.visible.includes('wants to run')),
    );
    expect(offered.visible).toContain(
      `Agent writer wants to run github__create_issue {"title":"*bold* [x](y)"} (/approve ${id})`,
    );
    telegram.pressButton(OWNER, offered.message_id, `ap:approve:${id}`);
    await telegram.waitFor(() => telegram.answeredCallbacks.length === 1);
    expect(telegram.answeredCallbacks[0]?.text).toBe("Approved: writer's call of github__create_issue.");
    expect(mesh.decisions).toEqual([{ id, decision: 'approve' }]);
  });

  it('tells the owner a workflow notice as plain text, and nobody when no owner is paired', async () => {
    const channel = await startChannel();
    mesh.notify({ text: 'nobody hears this' });
    channel.users.pair(OWNER.id, 'Ada', Date.now());
    mesh.notify({ text: 'run-1 of publish finished: *done*' });
    await telegram.waitFor(() => visibleTo(OWNER.id).length === 1);
    expect(visibleTo(OWNER.id)).toEqual(['run-1 of publish finished: *done*']);
  });
});
