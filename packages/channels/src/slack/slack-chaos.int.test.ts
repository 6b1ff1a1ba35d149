import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '@openlegion/infra/sqlite';
import type { ChannelChatRequest, ChatEvent } from '@openlegion/protocol';
import {
  Chaos,
  exactlyOnce,
  type FakeSlack,
  type FakeSlackEnvelope,
  startFakeSlack,
} from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeChannelMesh } from '../../test/fake-channel-mesh.js';
import { openSlackDatabase } from '../../test/slack-database.js';
import { SlackChannel } from './slack-channel.js';

/** Set CHAOS_SEED to replay a failing run. */
const SEED = Number(process.env.CHAOS_SEED ?? 2026);
const MESSAGES = 30;
/** The host is "killed" (the channel stopped with no grace) after this many messages, and started again a few later. */
const KILL_AFTER = 12;
const RESTART_AFTER = 16;
const PEOPLE = [{ id: 'U0CHADA' }, { id: 'U0CHBOB' }, { id: 'U0CHCY' }];
const logger = pino({ level: 'silent' });

/** An agent that streams its echo in three pieces, a few random milliseconds apart. */
class SlowMesh extends FakeChannelMesh {
  constructor(private readonly chaos: Chaos) {
    super();
  }

  override async *chat(
    agent: string,
    request: ChannelChatRequest,
    signal?: AbortSignal,
  ): AsyncIterable<ChatEvent> {
    this.chats.push({ agent, request });
    for (const text of ['echo: ', request.message, ' (done)']) {
      await sleep(this.chaos.between(0, 30), undefined, { signal });
      yield { type: 'text_delta', text };
    }
    yield { type: 'done', conversation_id: request.conversation_id ?? 'c', text: '' };
  }
}

let slack: FakeSlack;
let db: Database;
const running: SlackChannel[] = [];

const startChannel = async (mesh: FakeChannelMesh) => {
  const channel = new SlackChannel({
    botToken: slack.botToken,
    appToken: slack.appToken,
    apiRoot: slack.url,
    db,
    logger,
    defaultAgent: 'researcher',
    editIntervalMs: 20,
    reconnectDelayMs: 300,
    stopGraceMs: 0,
    maxDeliveryAttempts: 30,
    deliveryBackoffMs: () => 50,
  });
  running.push(channel);
  await channel.start(mesh);
  return channel;
};

beforeEach(async () => {
  // Slack delivers an event again when it was not acknowledged in time (3 s there; 300 ms here).
  slack = await startFakeSlack({ retryUnackedAfterMs: 300 });
  db = openSlackDatabase();
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((channel) => channel.stop()));
  await slack.close();
  db.close();
});

describe('Slack under chaos', () => {
  it('answers every message exactly once through drops, delays, duplicates, replays, failed sends and a kill', async () => {
    const chaos = new Chaos(SEED);
    const mesh = new SlowMesh(chaos);
    // A dropped envelope is never acknowledged, so the fake (as Slack) sends it again with
    // retry_attempt + 1; a delayed one arrives late, possibly after later ones.
    slack.setEnvelopeFilter(async (envelope) => {
      if (envelope.type !== 'events_api') return 'deliver';
      const delay = chaos.delayMs();
      if (delay > 0) await sleep(delay);
      if (!chaos.chance(chaos.rates.drop)) return 'deliver';
      chaos.tally.dropped += 1;
      return 'drop';
    });
    let refusals = 0;
    slack.setFaultPicker((method) => {
      if (method !== 'chat.postMessage' && method !== 'chat.update') return undefined;
      if (!chaos.failSend()) return undefined;
      // Mostly refusals the delivery core retries; now and then a 500 the Web API client retries.
      refusals += 1;
      return refusals % 4 === 0 ? { status: 500 } : { error: 'internal_error' };
    });

    let channel = await startChannel(mesh);
    for (const person of PEOPLE) {
      channel.users.pair(person.id, person.id, Date.now());
      channel.users.setConversation(person.id, slack.dmOf(person));
    }
    const sent: string[] = [];
    const asked: FakeSlackEnvelope[] = [];
    for (let index = 0; index < MESSAGES; index++) {
      const text = `msg-${String(index).padStart(3, '0')}`;
      asked.push(slack.sendDm(PEOPLE[index % PEOPLE.length] ?? { id: 'U0' }, text));
      sent.push(text);
      const last = asked.at(-1);
      if (last && chaos.chance(chaos.rates.duplicate)) {
        chaos.tally.duplicated += 1;
        slack.replay(last, 'http_error');
      }
      if (chaos.chance(chaos.rates.replay)) {
        chaos.tally.replayed += 1;
        const earlier = asked[chaos.between(0, asked.length - 1)];
        if (earlier) slack.replay(earlier, 'timeout');
      }
      await sleep(chaos.between(0, 40));
      if (index + 1 === KILL_AFTER) await channel.stop();
      if (index + 1 === RESTART_AFTER) channel = await startChannel(mesh);
    }

    const repliesTo = (text: string) =>
      slack.messages.filter((message) => message.text.includes(`echo: ${text}`)).length;
    const finished = (text: string) =>
      slack.messages.some((message) => message.text.includes(`echo: ${text} (done)`));
    await slack
      .waitFor(() => sent.every(finished), 40_000)
      .catch(() => {
        // Say which messages never finished and where they stand, to tell the cause from the seed.
        const open = sent.filter((text) => !finished(text));
        const rows = db.prepare('SELECT platform_id, state, attempts, last_error FROM channel_inbound').all();
        const envelopes = slack.envelopes.map((e) => [
          (e.payload.event as { text?: string }).text,
          e.retry_attempt,
          e.acked,
        ]);
        throw new Error(
          `unfinished: ${JSON.stringify(open)}\nspool: ${JSON.stringify(rows)}\nenvelopes: ${JSON.stringify(envelopes)}`,
        );
      });
    await sleep(300); // anything late (a second send) would show now

    expect(exactlyOnce(sent, repliesTo)).toEqual({ missing: [], duplicated: [] });
    expect(channel.spool.counts('slack')).toEqual({ accepted: 0, running: 0, answered: MESSAGES, dead: 0 });
    // Turns cut by the kill were asked again; the person still saw one reply.
    expect(mesh.chats.length).toBeGreaterThanOrEqual(MESSAGES);
    // The run was chaotic: every kind of fault happened at least once.
    for (const count of Object.values(chaos.tally)) expect(count).toBeGreaterThan(0);
  }, 60_000);
});
