import { FakeClock } from '@openlegion/infra/clock';
import { type Database, openDatabase } from '@openlegion/infra/sqlite';
import { type ChannelChatRequest, type ChatEvent, OpenLegionError } from '@openlegion/protocol';
import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeChannelMesh } from '../../test/fake-channel-mesh.js';
import { RecordingReplies } from '../../test/recording-replies.js';
import { ChannelRegistry } from './channel-registry.js';
import type { InboundMessage } from './delivery-contract.js';
import {
  DeliveryDispatcher,
  type DeliveryDispatcherOptions,
  REDIRECTING_NOTE,
} from './delivery-dispatcher.js';
import { DeliverySpool } from './delivery-spool.js';
import { EDIT_INTERVAL_MS } from './edit-pacer.js';

const logger = pino({ level: 'silent' });
let clock: FakeClock;
let db: Database;
let spool: DeliverySpool;
let replies: RecordingReplies;
let mesh: FakeChannelMesh;

const message = (platformId: string, text = `hello ${platformId}`): InboundMessage => ({
  channel: 'discord',
  platformId,
  conversation: 'D1',
  sender: 'U1',
  agent: 'researcher',
  text,
  receivedAt: clock.now(),
});

const dispatcher = (options: Partial<DeliveryDispatcherOptions> = {}) => {
  const started = new DeliveryDispatcher({
    channel: 'discord',
    spool,
    mesh,
    replies,
    clock,
    logger,
    ...options,
  });
  started.start();
  return started;
};

/** Move the clock in steps until the dispatcher has nothing running. */
async function drain(subject: DeliveryDispatcher, ms = 20 * EDIT_INTERVAL_MS): Promise<void> {
  for (let spent = 0; spent < ms; spent += 500) await clock.advance(500);
  await subject.settled();
}

/** Let timers due now and the promises they start run (a few rounds: chats start timers). */
async function tick(): Promise<void> {
  for (let round = 0; round < 5; round++) await clock.advance(0);
}

/** A mesh whose agent streams one delta, then waits for `release` before it finishes. */
class GatedMesh extends FakeChannelMesh {
  release: () => void = () => {};
  readonly requests: ChannelChatRequest[] = [];
  override async *chat(
    agent: string,
    request: ChannelChatRequest,
    signal?: AbortSignal,
  ): AsyncIterable<ChatEvent> {
    this.requests.push(request);
    yield { type: 'text_delta', text: `working on ${request.message}` };
    await new Promise<void>((resolve, reject) => {
      this.release = resolve;
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    yield { type: 'text_delta', text: ' — done' };
    yield { type: 'done', conversation_id: request.conversation_id ?? agent, text: '' };
  }
}

beforeEach(() => {
  clock = new FakeClock(1_000_000);
  db = openDatabase(':memory:');
  spool = new DeliverySpool(db, clock);
  replies = new RecordingReplies(clock);
  mesh = new FakeChannelMesh();
});

describe('DeliverySpool', () => {
  it('prunes answered messages after a week at start, and keeps dead letters', async () => {
    const subject = dispatcher();
    subject.submit(message('m1'));
    await drain(subject);
    replies.failWhen = () => new Error('gone');
    const dying = dispatcher({ maxAttempts: 1 });
    dying.submit(message('m2'));
    await drain(dying);
    await subject.stop();
    await dying.stop();
    await clock.advance(8 * 24 * 60 * 60 * 1000);
    dispatcher();
    expect(spool.counts('discord')).toEqual({ accepted: 0, running: 0, answered: 0, dead: 1 });
  });

  it('accepts a platform id once per channel', () => {
    expect(spool.accept(message('m1'))).toBe(true);
    expect(spool.accept(message('m1'))).toBe(false);
    expect(spool.accept({ ...message('m1'), channel: 'slack' })).toBe(true);
    expect(spool.counts('discord')).toEqual({ accepted: 1, running: 0, answered: 0, dead: 0 });
  });
});

describe('DeliveryDispatcher', () => {
  it('answers a message once, and drops the same platform id when it comes again', async () => {
    const subject = dispatcher();
    expect(subject.submit(message('m1'))).toBe(true);
    await drain(subject);
    expect(subject.submit(message('m1'))).toBe(false);
    await drain(subject);
    expect(replies.sends).toHaveLength(1);
    expect(replies.messagesIn('D1')).toEqual(['echo: hello m1']);
    expect(mesh.chats).toHaveLength(1);
    expect(mesh.chats[0]?.request).toMatchObject({ conversation_id: 'discord-D1-U1', mode: 'followup' });
    expect(spool.byPlatformId('discord', 'm1')?.state).toBe('answered');
  });

  it('retries a refused write with backoff, editing the message it sent, never asking the agent again', async () => {
    const gated = new GatedMesh();
    mesh = gated;
    const withGate = dispatcher({ backoffMs: (attempt) => 1_000 * 2 ** (attempt - 1) });
    withGate.submit(message('m1'));
    await tick();
    expect(replies.sends).toHaveLength(1);
    replies.failNext = [new Error('503 from the platform'), new Error('503 again')];
    gated.release();
    await clock.advance(EDIT_INTERVAL_MS);
    await tick();
    expect(spool.byPlatformId('discord', 'm1')).toMatchObject({ state: 'accepted', attempts: 1 });
    await clock.advance(1_000 + EDIT_INTERVAL_MS); // first retry (paced): fails again
    await tick();
    expect(spool.byPlatformId('discord', 'm1')).toMatchObject({ state: 'accepted', attempts: 2 });
    await drain(withGate); // second retry, 2 s later: written
    expect(spool.byPlatformId('discord', 'm1')).toMatchObject({ state: 'answered', attempts: 3 });
    expect(replies.sends).toHaveLength(1);
    expect(replies.messagesIn('D1')).toEqual(['working on hello m1 — done']);
    expect(gated.requests).toHaveLength(1);
  });

  it('moves a message that keeps failing to the dead letters; a retry from there answers it', async () => {
    const subject = dispatcher({ maxAttempts: 3, backoffMs: () => 1_000 });
    replies.failWhen = () => new OpenLegionError('CHAN_API_ERROR', 'Missing Access');
    subject.submit(message('m1', 'doomed'));
    await drain(subject, 10_000);
    const [letter] = spool.deadLetters();
    expect(letter).toMatchObject({
      channel: 'discord',
      platformId: 'm1',
      preview: 'doomed',
      attempts: 3,
      lastError: 'CHAN_API_ERROR: Missing Access',
    });
    replies.failWhen = undefined;
    expect(spool.retryDead(letter?.id ?? 0)).toBe(true);
    expect(spool.retryDead(letter?.id ?? 0)).toBe(false);
    expect(subject.sweep()).toBe(1);
    await drain(subject);
    expect(spool.deadLetters()).toEqual([]);
    expect(replies.messagesIn('D1')).toEqual(['echo: doomed']);
  });

  it('after a stop mid-reply, a new dispatcher on the same spool edits the message already sent', async () => {
    const gated = new GatedMesh();
    mesh = gated;
    const first = dispatcher();
    first.submit(message('m1'));
    await tick();
    expect(replies.sends).toHaveLength(1);
    await first.stop();
    expect(spool.byPlatformId('discord', 'm1')?.state).toBe('running');
    const second = dispatcher();
    await tick();
    gated.release();
    await drain(second);
    expect(replies.sends).toHaveLength(1);
    expect(replies.messagesIn('D1')).toEqual(['working on hello m1 — done']);
    expect(spool.byPlatformId('discord', 'm1')).toMatchObject({ state: 'answered', attempts: 2 });
  });

  it('steers the running turn with a redirecting note when the same person writes again (when_busy: steer)', async () => {
    const gated = new GatedMesh();
    mesh = gated;
    const subject = dispatcher();
    subject.submit(message('m1', 'first'));
    await tick();
    subject.submit(message('m2', 'no, the second'));
    await clock.advance(EDIT_INTERVAL_MS);
    expect(gated.requests.map((request) => request.mode)).toEqual(['followup', 'steer']);
    expect(replies.messagesIn('D1')[1]).toContain(`_${REDIRECTING_NOTE}_`);
  });

  it('queues it instead with when_busy: queue', async () => {
    const gated = new GatedMesh();
    mesh = gated;
    const subject = dispatcher({ whenBusy: 'queue' });
    subject.submit(message('m1', 'first'));
    subject.submit(message('m2', 'second'));
    await tick();
    expect(gated.requests.map((request) => request.mode)).toEqual(['followup', 'followup']);
    expect(replies.messagesIn('D1').join('\n')).not.toContain(REDIRECTING_NOTE);
  });

  it('splits a long reply at the platform limit on paragraph boundaries', async () => {
    const paragraph = (letter: string) => `${letter.repeat(900)}.`;
    const text = ['a', 'b', 'c', 'd'].map(paragraph).join('\n\n');
    mesh.respond = () => [{ type: 'text_delta', text }];
    const subject = dispatcher();
    subject.submit(message('m1'));
    await drain(subject);
    const parts = replies.messagesIn('D1');
    expect(parts).toEqual([
      [paragraph('a'), paragraph('b')].join('\n\n'),
      [paragraph('c'), paragraph('d')].join('\n\n'),
    ]);
  });

  it('answers with a short line when the agent cannot take the message', async () => {
    const subject = dispatcher();
    subject.submit({ ...message('m1'), agent: 'ghost' });
    await drain(subject);
    expect(replies.messagesIn('D1')).toEqual(['⚠ There is no agent named ghost\\. /agents lists them\\.']);
    expect(spool.byPlatformId('discord', 'm1')?.state).toBe('answered');
  });

  it('mirrors replies to the owners of the other channels when mirror is on', async () => {
    const registry = new ChannelRegistry(logger);
    const told: string[] = [];
    registry.register({ name: 'discord', mirror: true, tellOwner: async () => true });
    registry.register({ name: 'telegram', mirror: false, tellOwner: async (text) => told.push(text) > 0 });
    const subject = dispatcher({ registry });
    subject.submit(message('m1', 'hi'));
    await drain(subject);
    expect(told).toEqual(['*researcher* \\(on discord\\)\n\necho: hi']);
    expect(await registry.mirrorReply('telegram', 'writer', 'not mirrored')).toBe(0);
  });
});
