import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { MeshConfigInput } from '@openlegion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { llmFeature } from './index.js';

const config: MeshConfigInput = {
  llm: {
    default_model: 'flood/m',
    providers: { flood: { kind: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' } },
  },
  agents: { a: {} },
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
  let socket: Socket | undefined;

  beforeAll(async () => {
    upstream = await startFloodingUpstream();
    host = await startFeatureTestHost([llmFeature({ baseUrlOverrides: { flood: upstream.url } })], config);
    await host.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    socket?.destroy();
    await host.stop();
    upstream.server.closeAllConnections();
    upstream.server.close();
  });

  it('stops reading the provider: what the host takes stays bounded', async () => {
    const port = (host.app.server.address() as AddressInfo).port;
    const body = JSON.stringify({
      model: 'flood/m',
      stream: true,
      messages: [{ role: 'user', content: 'go' }],
    });
    const client = connect({ host: '127.0.0.1', port });
    socket = client;
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
});
