import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { MeshConfigInput } from '@openlegion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { llmCallSlotsOf } from '../server/index.js';
import { llmFeature } from './index.js';

const config: MeshConfigInput = {
  llm: {
    default_model: 'flood/m',
    providers: { flood: { kind: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' } },
  },
  agents: { a: {} },
  limits: { llm_calls_per_agent: 2 },
};

const CHUNK = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'z'.repeat(16_000) } }] })}\n\n`;

/** A provider that streams without end, as fast as its reader takes it (it honours backpressure). */
async function startFloodingUpstream(): Promise<{ server: Server; url: string; sent: () => number }> {
  let sent = 0;
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const pump = () => {
      while (!res.destroyed) {
        sent += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once('drain', pump);
      }
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/v1`, sent: () => sent };
}

describe('LLM proxy streaming to an agent that stops reading', () => {
  let host: FeatureTestHost;
  let upstream: Awaited<ReturnType<typeof startFloodingUpstream>>;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    upstream = await startFloodingUpstream();
    host = await startFeatureTestHost([llmFeature({ baseUrlOverrides: { flood: upstream.url } })], config);
    await host.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await host.stop();
    upstream.server.closeAllConnections();
    upstream.server.close();
  });

  /** A streamed completion on a raw socket that takes the first bytes of the answer, then stops reading. */
  async function pausedCall(): Promise<Socket> {
    const port = (host.app.server.address() as AddressInfo).port;
    const body = JSON.stringify({
      model: 'flood/m',
      stream: true,
      messages: [{ role: 'user', content: 'go' }],
    });
    const client = connect({ host: '127.0.0.1', port });
    sockets.push(client);
    await new Promise<void>((resolve) => client.once('connect', resolve));
    client.write(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n${Object.entries({
        ...host.agentAuth('a'),
        'content-type': 'application/json',
      })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('')}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await new Promise((resolve) => client.once('data', resolve));
    client.pause();
    return client;
  }

  it('stops reading the provider: what the host takes stays bounded', async () => {
    await pausedCall();
    // Wait until the provider is held back (nothing more taken for 300 ms), at most 10 s.
    let last = -1;
    for (let i = 0; i < 100 && upstream.sent() !== last; i++) {
      last = upstream.sent();
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(upstream.sent()).toBe(last);
    // Kernel buffers on both sockets plus a few stream chunks; an unread stream would take GBs.
    expect(last).toBeLessThan(64 * 1024 * 1024);
  });

  it('runs at most limits.llm_calls_per_agent calls of an agent at once, and takes one again when a call ends', async () => {
    const slots = llmCallSlotsOf(host.context);
    for (const socket of sockets.splice(0)) socket.destroy();
    await until(() => slots.open('a') === 0);
    const first = await pausedCall();
    await pausedCall();
    const refused = await fetch(
      `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}/v1/chat/completions`,
      {
        method: 'POST',
        headers: { ...host.agentAuth('a'), 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'flood/m', messages: [{ role: 'user', content: 'more' }] }),
      },
    );
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: unknown }).error).toMatchObject({
      code: 'LLM_CALL_LIMIT',
      message:
        'agent "a" already has 2 LLM calls running, as many as limits.llm_calls_per_agent (2) allows; ' +
        'wait for one to finish (read the stream it answers with) before starting another',
      retryable: true,
    });
    first.destroy();
    await until(() => slots.open('a') === 1);
    await pausedCall();
    expect(slots.open('a')).toBe(2);
  });
});

/** Wait (bounded) until `done` holds: the host sees a socket close a moment after the client drops it. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(done()).toBe(true);
}
