import { type AddressInfo, connect, type Socket } from 'node:net';
import type { MeshConfigInput } from '@openlegion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { type HostileMcpServer, startHostileMcpServer } from '../../test/hostile-mcp-server.js';
import { tracesFeature } from '../traces/index.js';
import { MCP_REQUESTS_PER_AGENT, mcpFeature } from './index.js';

/** An agent that opens streams and never reads them: the host must hold the server back, not buffer. */
describe('remote MCP streams an agent does not read', () => {
  let hostile: HostileMcpServer;
  let host: FeatureTestHost;
  let port: number;
  const sockets: Socket[] = [];
  let stopped = false;

  beforeAll(async () => {
    hostile = await startHostileMcpServer();
    const config: MeshConfigInput = {
      llm: { providers: { openai: { api_key: 'env:OPENAI_API_KEY' } } },
      mcp: { servers: { flood: { url: `${hostile.origin}/flood` } } },
      agents: { a: { permissions: { mcp: ['flood'] } } },
    };
    host = await startFeatureTestHost([tracesFeature(), mcpFeature()], config);
    await host.app.listen({ host: '127.0.0.1', port: 0 });
    port = (host.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    // The last test stops the host; a second stop is not asked of it.
    if (!stopped) await host?.stop();
    await hostile?.close();
  });

  /** A GET of the server's stream on a raw socket that takes the first bytes, then stops reading. */
  async function pausedStream(): Promise<Socket> {
    return (await rawGet()).client;
  }

  /** The GET on a raw socket: the socket, paused, and the first bytes of the answer. */
  async function rawGet(): Promise<{ client: Socket; head: string }> {
    const client = connect({ host: '127.0.0.1', port });
    sockets.push(client);
    await new Promise<void>((resolve) => client.once('connect', resolve));
    client.write(
      `GET /mesh/mcp/flood HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${host.agentAuth('a').authorization}\r\naccept: text/event-stream\r\n\r\n`,
    );
    const head = await new Promise<Buffer>((resolve) => client.once('data', resolve));
    client.pause();
    return { client, head: head.toString('latin1') };
  }

  it('stops reading the server while the agent does not read: what the host takes stays bounded', async () => {
    await pausedStream();
    let last = -1;
    for (let i = 0; i < 100 && hostile.flooded() !== last; i++) {
      last = hostile.flooded();
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(hostile.flooded()).toBe(last);
    // Kernel buffers on both sockets and a few chunks in between; an unread stream would take GBs.
    expect(last).toBeLessThan(64 * 1024 * 1024);
  });

  it(`holds at most ${MCP_REQUESTS_PER_AGENT} requests or streams of an agent open, and frees one when it closes`, async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    const streams: Socket[] = [];
    for (let i = 0; i < MCP_REQUESTS_PER_AGENT; i++) streams.push(await pausedStream());
    const refused = await host.app.inject({
      method: 'GET',
      url: '/mesh/mcp/flood',
      headers: { ...host.agentAuth('a'), accept: 'text/event-stream' },
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      error: {
        code: 'MCP_BUSY',
        message: `agent "a" already has ${MCP_REQUESTS_PER_AGENT} requests or streams open to MCP servers, as many as the host's cap of MCP requests per agent (${MCP_REQUESTS_PER_AGENT}) allows; wait for one to end (or close a stream) before opening another`,
        retryable: true,
      },
    });
    streams[0]?.destroy();
    // The host sees the socket close a moment later.
    let status = '';
    for (let i = 0; i < 100 && !status.startsWith('HTTP/1.1 200'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const { client, head } = await rawGet();
      status = head;
      if (!head.startsWith('HTTP/1.1 200')) client.destroy();
    }
    expect(status).toMatch(/^HTTP\/1.1 200/);
  });

  it('ends the streams it holds when the host stops', async () => {
    const stream = await pausedStream();
    const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
    stream.resume();
    const started = Date.now();
    stopped = true;
    await host.stop();
    await closed;
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
