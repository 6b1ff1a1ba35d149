import { createServer, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Loopback, listen } from '../../../test/loopback-servers.js';
import { callTool, toolNamed } from '../../../test/tool-harness.js';
import { createMeshTools } from './mesh-tools.js';

/**
 * The tools that reach the host's coordination (subscriptions, a stream's events, cron, a
 * blackboard watch) against a stand-in host that speaks the routes' real shapes, SSE included.
 */
const TOKEN = 'agent-token-team';
const workspace = '/nonexistent-workspace';

interface Seen {
  method: string;
  url: string;
  body: unknown;
}
let host: Loopback;
let seen: Seen[] = [];
/** What an SSE route sends: frames now, frames after a delay, or nothing. */
let sse: (url: string, response: ServerResponse) => void = () => {};
let json: (call: Seen) => { status: number; body: unknown } = () => ({ status: 200, body: {} });

const subscription = (id: number, pattern: string, delivery = 'lane') => ({
  id,
  agent: 'writer',
  pattern,
  delivery,
  cursor: 0,
  created_at: 1,
});
const event = (id: number, topic: string, payload: unknown) => ({
  id,
  topic,
  payload,
  published_by: 'researcher',
  published_at: 2,
  trace_id: null,
});
const frame = (name: string, data: unknown, id?: number) =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

beforeAll(async () => {
  host = await listen(
    createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        const call = {
          method: request.method ?? '',
          url: request.url ?? '',
          body: text ? JSON.parse(text) : undefined,
        };
        seen.push(call);
        if (request.headers.authorization !== `Bearer ${TOKEN}`) {
          response.writeHead(401).end();
          return;
        }
        if (request.headers.accept === 'text/event-stream' && !call.url.includes('forbidden')) {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          sse(call.url, response);
          return;
        }
        const reply = json(call);
        response
          .writeHead(reply.status, { 'content-type': 'application/json' })
          .end(JSON.stringify(reply.body));
      });
    }),
  );
});
afterAll(() => host.close());
beforeEach(() => {
  seen = [];
});

const tools = () => createMeshTools({ mesh: { meshUrl: host.url, token: TOKEN } });
const call = (name: string, args: unknown) => callTool(toolNamed(tools(), name), args, { workspace });

describe('subscription tools', () => {
  it('subscribes with lane delivery by default and says how events arrive', async () => {
    json = (c) => ({
      status: 201,
      body: { subscription: subscription(4, (c.body as { pattern: string }).pattern) },
    });
    const { text, isError } = await call('subscribe', { pattern: 'research.*' });
    expect(isError).toBe(false);
    expect(seen[0]).toEqual({
      method: 'POST',
      url: '/mesh/pubsub/subscriptions',
      body: { pattern: 'research.*', delivery: 'lane' },
    });
    expect(text).toBe('subscribed to research.* (subscription 4); each event will arrive as a message');
  });

  it("passes the host's refusal to the model, naming the permission", async () => {
    json = () => ({
      status: 403,
      body: {
        error: {
          code: 'MESH_FORBIDDEN',
          message: 'agent "writer" may not pubsub subscribe "secret.*"',
          retryable: false,
        },
      },
    });
    const { text, isError } = await call('subscribe', { pattern: 'secret.*' });
    expect(isError).toBe(true);
    expect(text).toContain('MESH_FORBIDDEN: agent "writer" may not pubsub subscribe "secret.*"');
  });

  it('refuses an unbounded pattern before any call', () => {
    expect(() => toolNamed(tools(), 'subscribe').input.parse({ pattern: 'a.'.repeat(200) })).toThrow();
  });

  it('reads the waiting events of a stream subscription, fenced, and acknowledges the last', async () => {
    sse = (_url, response) => {
      response.write(': subscribed\n\n');
      response.write(frame('event', event(7, 'research.done', { topic: 'tides' }), 7));
      response.write(frame('event', event(8, 'research.done', { topic: 'moon' }), 8));
    };
    json = () => ({ status: 200, body: { subscription: subscription(3, 'research.*', 'stream') } });
    const { text, isError } = await call('pubsub_next', { subscription: 3, wait_s: 5 });
    expect(isError).toBe(false);
    expect(seen[0]?.url).toBe('/mesh/pubsub/stream?subscription=3');
    expect(text).toContain('2 events (read up to 8)');
    expect(text).toContain('<untrusted');
    expect(text).toContain('event 8 on research.done from researcher: {"topic":"moon"}');
    expect(seen.at(-1)).toEqual({
      method: 'POST',
      url: '/mesh/pubsub/ack',
      body: { subscription: 3, event_id: 8 },
    });
  });

  it('stops at max events, acknowledging only those it returns', async () => {
    sse = (_url, response) => {
      for (let id = 1; id <= 5; id += 1) response.write(frame('event', event(id, 't', id), id));
    };
    json = () => ({ status: 200, body: {} });
    const { text } = await call('pubsub_next', { subscription: 3, max: 2 });
    expect(text).toContain('2 events (read up to 2)');
    expect(seen.at(-1)?.body).toEqual({ subscription: 3, event_id: 2 });
  });
});

describe('blackboard_watch', () => {
  it('waits for the next change to a matching key and returns it fenced', async () => {
    sse = (_url, response) => {
      response.write(': watching\n\n');
      setTimeout(() => {
        response.write(
          frame('put', {
            kind: 'put',
            key: 'research/tides',
            version: 2,
            by: 'researcher',
            at: Date.UTC(2026, 10, 26),
            entry: { value: { done: true } },
          }),
        );
      }, 50);
    };
    const { text, isError } = await call('blackboard_watch', { pattern: 'research/*', timeout_s: 10 });
    expect(isError).toBe(false);
    expect(seen[0]?.url).toBe('/mesh/blackboard/watch?pattern=research%2F*');
    expect(text).toContain(
      'research/tides now version 2, by researcher at 2026-11-26T00:00:00.000Z: {"done":true}',
    );
  });

  it('says nothing changed when the timeout passes', async () => {
    sse = (_url, response) => response.write(': watching\n\n');
    const { text, isError } = await call('blackboard_watch', { pattern: 'quiet/*', timeout_s: 1 });
    expect(isError).toBe(false);
    expect(text).toBe('no change to quiet/* within 1 s');
  });

  it("passes the host's refusal of a key it may not read", async () => {
    json = () => ({
      status: 403,
      body: { error: { code: 'MESH_FORBIDDEN', message: 'may not read forbidden/*', retryable: false } },
    });
    const { text, isError } = await call('blackboard_watch', { pattern: 'forbidden/*' });
    expect(isError).toBe(true);
    expect(text).toContain('MESH_FORBIDDEN: may not read forbidden/*');
  });
});

describe('cron tools', () => {
  const job = {
    id: 'writer@abc0',
    agent: 'writer',
    schedule: 'every 1h',
    timezone: null,
    message: 'summarise the day',
    heartbeat: false,
    origin: 'agent',
    paused: false,
    nextRunAt: Date.UTC(2026, 10, 26, 3),
    lastRunAt: null,
    lastResult: null,
    runs: 0,
    createdAt: 1,
  };

  it('adds, lists and removes a job of its own', async () => {
    json = (c) =>
      c.method === 'POST'
        ? { status: 201, body: { job } }
        : c.method === 'GET'
          ? {
              status: 200,
              body: { jobs: [job, { ...job, id: 'writer#0', origin: 'config', heartbeat: true }] },
            }
          : { status: 200, body: { ok: true } };
    const added = await call('cron_add', { schedule: 'every 1h', message: 'summarise the day' });
    expect(seen[0]?.body).toEqual({ schedule: 'every 1h', message: 'summarise the day' });
    expect(added.text).toBe(
      'scheduled writer@abc0: every 1h, next 2026-11-26T03:00:00.000Z, ran 0 times: "summarise the day"',
    );
    const listed = await call('cron_list', {});
    expect(listed.text).toContain(
      'writer#0: every 1h, next 2026-11-26T03:00:00.000Z, ran 0 times, from config: heartbeat',
    );
    const removed = await call('cron_remove', { id: 'writer@abc0' });
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', url: '/mesh/cron/writer%40abc0' });
    expect(removed.text).toBe('removed writer@abc0');
  });
});
