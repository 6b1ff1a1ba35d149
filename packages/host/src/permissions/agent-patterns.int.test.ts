import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MeshConfigInput } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { scriptedLanes } from '../../test/scripted-lanes.js';
import { blackboardFeature } from '../blackboard/index.js';
import { pubsubFeature } from '../pubsub/index.js';

// The patterns agents sent to freeze the host (issue 18): a watch of 22 stars and a "!", which a
// backtracking regex took 58 s to run against one key, and a subscription of 13 `**` parts, which
// did not finish one publish in 100 s.
const STAR_PILE_WATCH = `${'*'.repeat(22)}!`;
const DOUBLE_STAR_SUBSCRIPTION = `research.${'**.'.repeat(13)}x`;

const config: MeshConfigInput = {
  llm: { providers: { openai: {} } },
  agents: {
    researcher: {
      permissions: {
        blackboard: { read: ['research/*'], write: ['research/*'] },
        pubsub: { publish: ['research.*'] },
      },
    },
    writer: {
      permissions: { blackboard: { read: ['research/*'] }, pubsub: { subscribe: ['research.*'] } },
    },
  },
};

const hosts: FeatureTestHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()));
});

async function start(options: { dbFile?: string; logTo?: { write(line: string): void } } = {}) {
  const lanes = scriptedLanes(() => 'hold');
  const host = await startFeatureTestHost(
    [lanes, blackboardFeature(), pubsubFeature({ lanes })],
    config,
    options,
  );
  hosts.push(host);
  const call = (agent: string, method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
    host.app.inject({
      method,
      url,
      headers: agent === 'operator' ? host.operatorAuth : host.agentAuth(agent),
      ...(payload === undefined ? {} : { payload }),
    });
  return { host, lanes, call };
}

/** Open an SSE stream over real HTTP and wait for its first comment frame (the route has set up). */
async function openStream(host: FeatureTestHost, agent: string, url: string): Promise<AbortController> {
  if (!host.app.server.listening) await host.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`;
  const controller = new AbortController();
  const response = await fetch(`${base}${url}`, {
    headers: host.agentAuth(agent),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  return controller;
}

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const startedAt = performance.now();
  const result = await work();
  return { result, ms: performance.now() - startedAt };
}

describe('agent-supplied patterns on the blackboard watch', () => {
  it('refuses the star-pile watch with REQUEST_INVALID naming the field and the bound', async () => {
    const { call } = await start();
    const refused = await call('writer', 'GET', `/mesh/blackboard/watch?pattern=${STAR_PILE_WATCH}`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatchObject({
      code: 'REQUEST_INVALID',
      message:
        'invalid request: query.pattern: a pattern has at most 16 wildcards (* or ?); this one has 22: use fewer',
    });
  });

  it('refuses a watch pattern longer than 256 characters', async () => {
    const { call } = await start();
    const refused = await call('writer', 'GET', `/mesh/blackboard/watch?pattern=research/${'a'.repeat(300)}`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatchObject({
      code: 'REQUEST_INVALID',
      message:
        'invalid request: query.pattern: a pattern is at most 256 characters (this one has 309); use a shorter one',
    });
  });

  it('keeps a PUT prompt while a watch at the wildcard cap is open', async () => {
    const { host, call } = await start();
    const watch = await openStream(host, 'writer', `/mesh/blackboard/watch?pattern=${'*'.repeat(16)}!`);
    const key = `research/${'a'.repeat(240)}`;
    const { result, ms } = await timed(() =>
      call('researcher', 'PUT', `/mesh/blackboard/entries/${key}`, { value: 1 }),
    );
    watch.abort();
    expect(result.statusCode).toBe(200);
    expect(ms).toBeLessThan(1_000);
  });
});

describe('agent-supplied patterns on pub/sub', () => {
  it('keeps a publish prompt with the 13 `**` lane and stream subscriptions in place', async () => {
    const { host, lanes, call } = await start();
    // The same pattern twice is one subscription; `>` is the other spelling of `**`.
    const subscribed = [
      { pattern: DOUBLE_STAR_SUBSCRIPTION, delivery: 'lane' },
      { pattern: DOUBLE_STAR_SUBSCRIPTION.replaceAll('**', '>'), delivery: 'stream' },
    ];
    for (const subscription of subscribed)
      expect((await call('writer', 'POST', '/mesh/pubsub/subscriptions', subscription)).statusCode).toBe(201);
    const { subscriptions } = (await call('writer', 'GET', '/mesh/pubsub/subscriptions')).json();
    const stream = await openStream(
      host,
      'writer',
      `/mesh/pubsub/stream?subscription=${subscriptions[1].id}`,
    );
    const topic = `research.${'a.'.repeat(90)}b`;
    const { result, ms } = await timed(() =>
      call('researcher', 'POST', '/mesh/pubsub/publish', { topic, payload: 1 }),
    );
    stream.abort();
    expect(result.statusCode).toBe(201);
    expect(ms).toBeLessThan(1_000);
    expect(lanes.items()).toHaveLength(0);
    const matching = await call('researcher', 'POST', '/mesh/pubsub/publish', {
      topic: `research.${'a.'.repeat(13)}x`,
      payload: 2,
    });
    expect(matching.statusCode).toBe(201);
    expect(lanes.items().map((item) => item.agent)).toEqual(['writer']);
  });

  it('refuses a subscription with more than 16 wildcard parts, naming the field and the bound', async () => {
    const { call } = await start();
    const refused = await call('writer', 'POST', '/mesh/pubsub/subscriptions', {
      pattern: `research.${'**.'.repeat(17)}x`,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatchObject({
      code: 'REQUEST_INVALID',
      message:
        'invalid request: body.pattern: a pattern has at most 16 wildcards (*, ** or > parts); this one has 17: use fewer',
    });
  });

  it('refuses an events topic filter beyond the bounds', async () => {
    const { call } = await start();
    const refused = await call('operator', 'GET', `/api/pubsub/events?topic=${'*.'.repeat(20)}x`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toBe(
      'invalid request: query.topic: a pattern has at most 16 wildcards (*, ** or > parts); this one has 20: use fewer',
    );
  });

  it('skips a stored subscription beyond the bounds at start with a warning, and refuses to stream it', async () => {
    const dbFile = path.join(mkdtempSync(path.join(tmpdir(), 'patterns-')), 'mesh.db');
    const first = await start({ dbFile });
    await first.call('writer', 'POST', '/mesh/pubsub/subscriptions', {
      pattern: 'research.**',
      delivery: 'lane',
    });
    // As an older version stored it: 40 `**` parts and events waiting.
    const wild = `research.${'**.'.repeat(40)}x`;
    first.host.context.db
      .prepare(
        "INSERT INTO pubsub_subscriptions (agent, pattern, delivery, cursor, created_at) VALUES ('writer', ?, 'lane', 0, 0)",
      )
      .run(wild);
    first.host.context.db
      .prepare(
        "INSERT INTO pubsub_events (topic, payload, published_by, published_at, trace_id) VALUES (?, '1', 'researcher', 0, NULL)",
      )
      .run(`research.${'a.'.repeat(60)}b`);
    await first.host.stop();

    const lines: string[] = [];
    const second = await start({ dbFile, logTo: { write: (line) => void lines.push(line) } });
    const skipped = lines.map((line) => JSON.parse(line)).filter((line) => line.subscription === 2);
    expect(skipped).toMatchObject([
      {
        level: 40,
        msg: 'a stored subscription is skipped: a pattern has at most 16 wildcards (*, ** or > parts); this one has 40: use fewer; the agent should delete it and subscribe again',
      },
    ]);
    // The subscription within the bounds was still caught up.
    expect(second.lanes.items().map((item) => item.agent)).toEqual(['writer']);
    const stream = await second.call('writer', 'GET', '/mesh/pubsub/stream?subscription=2');
    expect(stream.statusCode).toBe(400);
    expect(stream.json().error).toMatchObject({
      code: 'REQUEST_INVALID',
      message:
        'subscription 2 was made before patterns were bounded: a pattern has at most 16 wildcards (*, ** or > parts); this one has 40: use fewer; delete it and subscribe again',
    });
  });
});
