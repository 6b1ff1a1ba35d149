import type { AddressInfo } from 'node:net';
import { readSseFrames } from '@openlegion/infra/sse';
import type { MeshConfigInput } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { scriptedLanes } from '../../test/scripted-lanes.js';
import { pubsubFeature } from './pubsub-feature.js';

const config: MeshConfigInput = {
  llm: { providers: { openai: {} } },
  agents: {
    researcher: { permissions: { pubsub: { publish: ['news.*'], subscribe: ['news.*'] } } },
    writer: { permissions: { pubsub: { publish: ['news.*'] } } },
  },
};

const hosts: FeatureTestHost[] = [];
async function start(limits: MeshConfigInput['limits'] = {}) {
  const lanes = scriptedLanes(() => 'hold');
  const host = await startFeatureTestHost([lanes, pubsubFeature({ lanes })], { ...config, limits });
  hosts.push(host);
  const publish = (agent: string, topic: string, payload: unknown) =>
    host.app.inject({
      method: 'POST',
      url: agent === 'operator' ? '/api/pubsub/publish' : '/mesh/pubsub/publish',
      headers: agent === 'operator' ? host.operatorAuth : host.agentAuth(agent),
      payload: { topic, payload },
    });
  const stored = (by: string) =>
    host.context.db
      .prepare<[string], { id: number }>('SELECT id FROM pubsub_events WHERE published_by = ? ORDER BY id')
      .all(by)
      .map(({ id }) => id);
  return { host, publish, stored };
}
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()));
});

describe('pub/sub limits', () => {
  it('refuses a payload past limits.pubsub_payload_bytes before anything is written', async () => {
    const { publish, stored } = await start();
    const refused = await publish('researcher', 'news.big', 'x'.repeat(65_536));
    expect(refused.statusCode).toBe(413);
    expect(refused.json().error).toEqual({
      code: 'MESH_VALUE_TOO_LARGE',
      message:
        'payload: 65538 bytes of JSON for topic "news.big"; pub/sub carries at most 65536 (limits.pubsub_payload_bytes)',
      retryable: false,
      details: { topic: 'news.big', bytes: 65_538, max: 65_536, field: 'limits.pubsub_payload_bytes' },
    });
    expect((await publish('operator', 'news.big', 'x'.repeat(65_536))).statusCode).toBe(413);
    expect(stored('researcher')).toEqual([]);
    expect(stored('operator')).toEqual([]);
    expect((await publish('researcher', 'news.ok', 'x'.repeat(65_534))).statusCode).toBe(201);
  });

  it('refuses a body far past the payload cap from its length, before reading or parsing it', async () => {
    const { publish, stored } = await start();
    const refused = await publish('researcher', 'news.huge', 'y'.repeat(9 * 1024 * 1024));
    expect(refused.statusCode).toBe(413);
    expect(refused.json().error).toMatchObject({
      code: 'MESH_VALUE_TOO_LARGE',
      message: expect.stringMatching(
        /^payload: the request is \d+ bytes; a payload is at most 65536 bytes of JSON \(limits\.pubsub_payload_bytes\), so the host reads at most 266240$/,
      ),
    });
    expect(stored('researcher')).toEqual([]);
  });

  it('holds an agent to limits.write_bytes_per_agent_per_s with a retryable 429 that says when to retry', async () => {
    const { publish, stored } = await start({ write_bytes_per_agent_per_s: 16_384 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1)
      statuses.push((await publish('researcher', 'news.bulk', 'z'.repeat(16_000))).statusCode);
    // A burst of four seconds' worth goes through; the next is refused, nothing of it stored.
    expect(statuses).toEqual([201, 201, 201, 201, 429, 429]);
    const refused = await publish('researcher', 'news.bulk', 'z'.repeat(16_000));
    expect(refused.json().error).toMatchObject({
      code: 'MESH_RATE_LIMITED',
      retryable: true,
      message: expect.stringMatching(
        /^agent "researcher" writes to the blackboard and pub\/sub faster than limits\.write_bytes_per_agent_per_s \(16384 bytes a second, bursts of 65536\); retry in \d+ ms$/,
      ),
    });
    expect(stored('researcher')).toHaveLength(4);
    // Another agent and the operator are not held by researcher's rate.
    expect((await publish('writer', 'news.bulk', 'w')).statusCode).toBe(201);
    expect((await publish('operator', 'news.bulk', 'o'.repeat(16_000))).statusCode).toBe(201);
  });

  it("keeps each publisher's newest limits.pubsub_events_per_agent events as it publishes", async () => {
    const { publish, stored } = await start({ pubsub_events_per_agent: 10 });
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) ids.push((await publish('researcher', 'news.tick', i)).json().event.id);
    for (let i = 0; i < 3; i++) await publish('writer', 'news.tock', i);
    expect(stored('researcher')).toEqual(ids.slice(-10));
    expect(stored('writer')).toHaveLength(3);
  });

  it('replays a long backlog as the reader takes it, without dropping a reader that keeps up', async () => {
    // Megabytes published at once: past the write rate, which is not what this test is about.
    const { host, publish } = await start({ write_bytes_per_agent_per_s: 1 << 30 });
    const subscribed = await host.app.inject({
      method: 'POST',
      url: '/mesh/pubsub/subscriptions',
      headers: host.agentAuth('researcher'),
      payload: { pattern: 'news.*', delivery: 'stream' },
    });
    const subscription = subscribed.json().subscription.id;
    // 6 MB: sent at once, more than the kernel's socket buffers and the stream's 256 KiB bound hold.
    const count = 100;
    for (let i = 0; i < count; i++) await publish('researcher', 'news.long', { i, text: 'y'.repeat(60_000) });
    await host.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`;
    const controller = new AbortController();
    const response = await fetch(`${url}/mesh/pubsub/stream?subscription=${subscription}`, {
      headers: host.agentAuth('researcher'),
      signal: controller.signal,
    });
    const received: number[] = [];
    for await (const frame of readSseFrames(response.body as unknown as AsyncIterable<Uint8Array>)) {
      expect(frame.event).toBe('event');
      received.push((JSON.parse(frame.data) as { payload: { i: number } }).payload.i);
      if (received.length === count) break;
    }
    controller.abort();
    expect(received).toEqual(Array.from({ length: count }, (_, i) => i));
  });
});
