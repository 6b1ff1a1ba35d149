import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readSseFrames } from '@openlegion/infra/sse';
import type { MeshConfigInput, MeshEvent } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { type ScriptedLanes, scriptedLanes } from '../../test/scripted-lanes.js';
import { pubsubFeature } from './pubsub-feature.js';

const config: MeshConfigInput = {
  llm: { providers: { openai: {} } },
  agents: {
    researcher: { permissions: { pubsub: { publish: ['research.*'], subscribe: [] } } },
    writer: { permissions: { pubsub: { subscribe: ['research.*'] } } },
  },
};

const hosts: FeatureTestHost[] = [];
async function start(options: { dbFile?: string; lanes?: ScriptedLanes } = {}) {
  const lanes = options.lanes ?? scriptedLanes(() => 'hold');
  const host = await startFeatureTestHost([lanes, pubsubFeature({ lanes })], config, {
    ...(options.dbFile ? { dbFile: options.dbFile } : {}),
  });
  hosts.push(host);
  const post = (agent: string, url: string, payload: object) =>
    host.app.inject({ method: 'POST', url, headers: host.agentAuth(agent), payload });
  const get = (agent: string, url: string) => host.app.inject({ url, headers: host.agentAuth(agent) });
  return { host, lanes, post, get };
}
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()));
});

/** Read `count` events from a subscription's SSE stream over real HTTP, then hang up. */
async function streamed(host: FeatureTestHost, agent: string, subscription: number, count: number) {
  if (!host.app.server.listening) await host.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`;
  const controller = new AbortController();
  const response = await fetch(`${url}/mesh/pubsub/stream?subscription=${subscription}`, {
    headers: host.agentAuth(agent),
    signal: controller.signal,
  });
  const events: MeshEvent[] = [];
  if (count > 0)
    for await (const frame of readSseFrames(response.body as unknown as AsyncIterable<Uint8Array>)) {
      events.push(JSON.parse(frame.data));
      if (events.length === count) break;
    }
  controller.abort();
  return events;
}

describe('pub/sub', () => {
  it('publishes within the permission and refuses outside it, naming the permission', async () => {
    const { post } = await start();
    const ok = await post('researcher', '/mesh/pubsub/publish', {
      topic: 'research.done',
      payload: { n: 1 },
    });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().event).toMatchObject({ id: 1, topic: 'research.done', published_by: 'researcher' });
    const refused = await post('researcher', '/mesh/pubsub/publish', { topic: 'tasks.new', payload: 1 });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.message).toContain('agents.researcher.permissions.pubsub.publish');
    expect((await post('writer', '/mesh/pubsub/subscriptions', { pattern: 'tasks.*' })).statusCode).toBe(403);
    expect(
      (await post('ghost', '/mesh/pubsub/publish', { topic: 'research.x', payload: 1 })).statusCode,
    ).toBe(403);
    const bad = await post('researcher', '/mesh/pubsub/publish', { topic: 'research..x', payload: 1 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/topic/);
  });

  it('streams matching events at least once: unacked ones come again, acked ones never', async () => {
    const { host, post } = await start();
    const { subscription } = (
      await post('writer', '/mesh/pubsub/subscriptions', { pattern: 'research.*' })
    ).json();
    for (const topic of ['research.a', 'research.deep.b', 'research.c'])
      await post('researcher', '/mesh/pubsub/publish', { topic, payload: topic });
    const first = await streamed(host, 'writer', subscription.id, 2);
    expect(first.map((event) => event.topic)).toEqual(['research.a', 'research.c']);
    await post('writer', '/mesh/pubsub/ack', { subscription: subscription.id, event_id: first[0]?.id });
    const again = await streamed(host, 'writer', subscription.id, 1);
    expect(again.map((event) => event.topic)).toEqual(['research.c']);
    expect(
      (await post('researcher', '/mesh/pubsub/ack', { subscription: subscription.id, event_id: 3 }))
        .statusCode,
    ).toBe(404);
  });

  it('keeps subscriptions and cursors across a restart, and ignores a repeated subscribe', async () => {
    const dbFile = path.join(mkdtempSync(path.join(tmpdir(), 'pubsub-')), 'mesh.db');
    const first = await start({ dbFile });
    const { subscription } = (
      await first.post('writer', '/mesh/pubsub/subscriptions', { pattern: 'research.*' })
    ).json();
    await first.post('researcher', '/mesh/pubsub/publish', { topic: 'research.a', payload: 1 });
    await first.host.stop();
    const second = await start({ dbFile });
    const again = (
      await second.post('writer', '/mesh/pubsub/subscriptions', { pattern: 'research.*' })
    ).json();
    expect(again.subscription).toEqual(subscription);
    const events = await streamed(second.host, 'writer', subscription.id, 1);
    expect(events.map((event) => event.topic)).toEqual(['research.a']);
  });

  it("wakes a lane subscriber's agent once per event, also after a restart and after its agent was down", async () => {
    const dbFile = path.join(mkdtempSync(path.join(tmpdir(), 'pubsub-')), 'mesh.db');
    const lanes = scriptedLanes(() => 'hold');
    const first = await start({ dbFile, lanes });
    await first.post('writer', '/mesh/pubsub/subscriptions', { pattern: 'research.*', delivery: 'lane' });
    await first.post('researcher', '/mesh/pubsub/publish', { topic: 'research.a', payload: { url: 'x' } });
    expect(lanes.items().map((item) => [item.agent, item.source])).toEqual([['writer', 'pubsub']]);
    expect(lanes.items()[0]?.message).toContain('Event on topic "research.a" published by researcher');
    lanes.stopAgent('writer');
    await first.post('researcher', '/mesh/pubsub/publish', { topic: 'research.b', payload: 2 });
    expect(lanes.items()).toHaveLength(1);
    await first.host.stop();

    const again = scriptedLanes(() => 'hold');
    await start({ dbFile, lanes: again });
    // research.a was handed over before (same idempotency key): only research.b is new.
    expect(again.items().map((item) => item.message.match(/topic "([^"]+)"/)?.[1])).toEqual([
      'research.a',
      'research.b',
    ]);
  });

  it('makes the standing subscriptions of mesh.yaml at start, and refuses one outside the permission', async () => {
    const standing: MeshConfigInput = {
      ...config,
      agents: {
        ...config.agents,
        writer: {
          permissions: { pubsub: { subscribe: ['research.*'] } },
          subscriptions: [{ pattern: 'research.*' }],
        },
      },
    };
    const lanes = scriptedLanes(() => 'hold');
    const host = await startFeatureTestHost([lanes, pubsubFeature({ lanes })], standing);
    hosts.push(host);
    await host.app.inject({
      method: 'POST',
      url: '/mesh/pubsub/publish',
      headers: host.agentAuth('researcher'),
      payload: { topic: 'research.done', payload: { n: 1 } },
    });
    expect(lanes.items().map((item) => [item.agent, item.source])).toEqual([['writer', 'pubsub']]);

    const refused: MeshConfigInput = {
      ...config,
      agents: { ...config.agents, writer: { subscriptions: [{ pattern: 'secret.*', delivery: 'stream' }] } },
    };
    await expect(startFeatureTestHost([lanes, pubsubFeature({ lanes })], refused)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message:
        'agents.writer.subscriptions.0: "secret.*" is not within agents.writer.permissions.pubsub.subscribe; add it there',
    });
  });
});
