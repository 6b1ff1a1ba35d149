import { type AddressInfo, connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { MeshConfigInput } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { scriptedLanes } from '../../test/scripted-lanes.js';
import { blackboardFeature } from '../blackboard/index.js';
import { pubsubFeature } from '../pubsub/index.js';
import { streamSlotsOf } from './agent-slots.js';

const everything = {
  blackboard: { read: ['*'], write: ['*'] },
  pubsub: { publish: ['**'], subscribe: ['**'] },
};
const AGENTS = ['a', 'b', 'c', 'd', 'e'];
const config: MeshConfigInput = {
  llm: { providers: { openai: {} } },
  agents: Object.fromEntries(AGENTS.map((name) => [name, { permissions: everything }])),
  // These tests write megabytes at once to fill streams: past the write rate, a bound of its own.
  limits: { write_bytes_per_agent_per_s: 1 << 30 },
};

/** A full collection before each reading, so RSS shows what is held, not garbage not yet collected. */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const heldRss = () => {
  collectGarbage();
  return process.memoryUsage().rss;
};

const hosts: FeatureTestHost[] = [];
const sockets: Socket[] = [];
async function start() {
  const lanes = scriptedLanes(() => 'hold');
  const host = await startFeatureTestHost([lanes, blackboardFeature(), pubsubFeature({ lanes })], config);
  hosts.push(host);
  await host.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (host.app.server.address() as AddressInfo).port;
  return { host, port, url: `http://127.0.0.1:${port}` };
}
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(hosts.splice(0).map((host) => host.stop()));
});

/** Wait (bounded) until `done` holds: the host sees a socket close a moment after the client drops it. */
async function until(done: () => boolean, what: string, ms = 2_000): Promise<void> {
  for (let i = 0; i < ms / 10 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!done()) throw new Error(`timed out waiting until ${what}`);
}

/** An SSE request on a raw socket whose reader never reads: what the host sends piles up. */
function pausedWatch(port: number, token: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write(
        `GET /mesh/blackboard/watch?pattern=* HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${token}\r\n\r\n`,
      );
      // Take the headers, then stop reading for good.
      socket.once('data', () => {
        socket.pause();
        resolve(socket);
      });
    });
    socket.on('error', reject);
    sockets.push(socket);
  });
}

describe('agent streams', () => {
  it('gives an agent at most limits.streams_per_agent streams, and a slot back when one ends', async () => {
    const { host, url } = await start();
    const auth = host.agentAuth('a');
    const subscribed = await host.app.inject({
      method: 'POST',
      url: '/mesh/pubsub/subscriptions',
      headers: auth,
      payload: { pattern: 'news.*', delivery: 'stream' },
    });
    const subscription = subscribed.json().subscription.id;
    const open = (path: string) => {
      const controller = new AbortController();
      return fetch(`${url}${path}`, { headers: auth, signal: controller.signal }).then((response) => ({
        response,
        close: () => controller.abort(),
      }));
    };
    const streams = [
      await open('/mesh/blackboard/watch?pattern=x/*'),
      await open('/mesh/blackboard/watch'),
      await open(`/mesh/pubsub/stream?subscription=${subscription}`),
      await open(`/mesh/pubsub/stream?subscription=${subscription}`),
    ];
    expect(streams.map(({ response }) => response.status)).toEqual([200, 200, 200, 200]);

    const refused = await open('/mesh/blackboard/watch');
    expect(refused.response.status).toBe(429);
    expect(await refused.response.json()).toMatchObject({
      error: {
        code: 'MESH_STREAM_LIMIT',
        message:
          'agent "a" already has 4 streams open, as many as limits.streams_per_agent (4) allows; ' +
          'close one (end a watch or a pub/sub stream) before opening another',
        retryable: true,
      },
    });
    // Another agent has slots of its own.
    const other = await fetch(`${url}/mesh/blackboard/watch`, { headers: host.agentAuth('b') });
    expect(other.status).toBe(200);
    await other.body?.cancel();

    streams[2]?.close();
    const slots = streamSlotsOf(host.context);
    await until(() => slots.open('a') === 3, 'the closed stream gave its slot back');
    const next = await open(`/mesh/pubsub/stream?subscription=${subscription}`);
    expect(next.response.status).toBe(200);
    for (const stream of [...streams, next]) stream.close();
    await until(() => slots.open('a') === 0, 'every stream gave its slot back');
  });

  it('ends a watch whose reader stopped reading, with MESH_STREAM_TOO_SLOW as its last frame', async () => {
    const { host, port } = await start();
    const socket = await pausedWatch(port, host.agentAuth('a').authorization);
    const value = 'v'.repeat(60_000);
    const slots = streamSlotsOf(host.context);
    for (let i = 0; i < 100; i++) {
      const put = await host.app.inject({
        method: 'PUT',
        url: `/mesh/blackboard/entries/k${i % 10}`,
        headers: host.agentAuth('b'),
        payload: { value },
      });
      expect(put.statusCode).toBe(200);
    }
    // The reader, reading again, finds everything queued and then why the stream ended.
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.resume();
    await until(() => received.endsWith('\r\n0\r\n\r\n'), 'the response ended');
    const tail = received.slice(received.lastIndexOf('event: error'));
    expect(tail).toContain('"code":"MESH_STREAM_TOO_SLOW"');
    expect(tail).toContain('more than limits.stream_backlog_bytes (262144) allows');
    await until(() => slots.open('a') === 0, 'the ended stream gave its slot back');
  });

  it('holds host memory within bounds under 20 paused watches and 100 writes of 60 KB', async () => {
    const { host, port } = await start();
    const value = 'v'.repeat(60_000);
    const writeAll = async () => {
      for (let i = 0; i < 100; i++) {
        const put = await host.app.inject({
          method: 'PUT',
          url: `/mesh/blackboard/entries/k${i % 10}`,
          headers: host.agentAuth('a'),
          payload: { value },
        });
        expect(put.statusCode).toBe(200);
      }
    };
    // Once without watches first: what the writes alone cost (the database's pages, warm caches).
    await writeAll();
    for (const agent of AGENTS)
      for (let i = 0; i < 4; i++) await pausedWatch(port, host.agentAuth(agent).authorization);
    const slots = streamSlotsOf(host.context);
    expect(AGENTS.map((agent) => slots.open(agent))).toEqual([4, 4, 4, 4, 4]);
    const before = heldRss();
    await writeAll();
    const grown = heldRss() - before;
    // Unbounded, the 20 watches queued all 20 × 100 × 60 KB the kernel would not take: RSS grew by
    // 44-50 MB here (89 MB in the report); each now holds at most 256 KiB (~15 MB with the noise).
    expect(grown).toBeLessThan(30 * 1024 * 1024);
    // Dropped readers that never take their last frame lose their socket after the grace.
    await until(() => AGENTS.every((agent) => slots.open(agent) === 0), 'every slot came back', 10_000);
  });
});
