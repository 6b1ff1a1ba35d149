import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@openlegion/infra/log';
import { meshConfigSchema } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { environmentSecrets } from '../secrets/index.js';
import { CallAbort } from '../server/index.js';
import { createLlmProxy, type LlmProxy } from './llm-proxy.js';

const MESSAGES = [{ role: 'user', content: 'hi' }];
const ANSWER = JSON.stringify({
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
});

interface Upstream {
  url: string;
  /** Connections the proxy opened to it. */
  connections: number;
  /** Requests whose connection closed before their answer ended. */
  cutOff: number;
  paths: string[];
  /** The accept-encoding each request carried. */
  encodings: Array<string | undefined>;
  close(): Promise<void>;
}

/** A loopback provider answering each request with `answer`. */
async function startUpstream(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Upstream> {
  const upstream = {
    connections: 0,
    cutOff: 0,
    paths: [] as string[],
    encodings: [] as Array<string | undefined>,
  };
  const server: Server = createServer((req, res) => {
    upstream.paths.push(req.url ?? '');
    upstream.encodings.push(req.headers['accept-encoding']);
    res.once('close', () => {
      if (!res.writableFinished) upstream.cutOff++;
    });
    req.resume();
    req.once('end', () => answer(req, res));
  });
  server.on('connection', () => upstream.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(upstream, {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

describe('the proxy upstream call (undici, keep-alive)', () => {
  let upstream: Upstream | undefined;
  let proxy: LlmProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  const proxyTo = (url: string, firstByteMs?: number) => {
    proxy = createLlmProxy({
      config: meshConfigSchema.parse({
        llm: {
          default_model: 'up/m',
          providers: { up: { kind: 'openai-compatible', base_url: url } },
          ...(firstByteMs === undefined ? {} : { timeouts: { first_byte_ms: firstByteMs } }),
        },
        agents: { a: {} },
      }),
      secrets: environmentSecrets({}),
      logger: createLogger({ level: 'silent' }),
    });
    return proxy;
  };

  it('sends sequential calls to one provider over kept-alive connections, not one connection per call, asking for no compression', async () => {
    upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(ANSWER);
    });
    const llm = proxyTo(upstream.url);
    for (let call = 0; call < 6; call++) {
      const answer = await llm.forwardChatCompletion({ model: 'up/m', messages: MESSAGES }, { agent: 'a' });
      expect(Buffer.from(answer.body as Uint8Array).toString()).toBe(ANSWER);
    }
    expect(upstream.paths).toEqual(Array(6).fill('/v1/chat/completions'));
    // What the proxy passes on unchanged must not come compressed.
    expect(upstream.encodings).toEqual(Array(6).fill('identity'));
    // undici may open a second connection while the first is still finishing its last answer.
    expect(upstream.connections).toBeLessThanOrEqual(2);
  });

  it('never follows a redirect: the provider counts as unreachable and the other URL is never called', async () => {
    upstream = await startUpstream((req, res) => {
      if (req.url?.startsWith('/elsewhere')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(ANSWER);
        return;
      }
      res.writeHead(307, { location: '/elsewhere/chat/completions' });
      res.end();
    });
    const call = proxyTo(upstream.url).forwardChatCompletion(
      { model: 'up/m', messages: MESSAGES },
      { agent: 'a' },
    );
    await expect(call).rejects.toMatchObject({
      code: 'LLM_PROVIDER_UNAVAILABLE',
      message: expect.stringMatching(/307.*redirect/),
    });
    expect(upstream.paths).toEqual(['/v1/chat/completions']);
  });

  it('gives up on a provider that sends no headers within mesh.yaml llm.timeouts.first_byte_ms', async () => {
    upstream = await startUpstream(() => {});
    const call = proxyTo(upstream.url, 100).forwardChatCompletion(
      { model: 'up/m', messages: MESSAGES },
      { agent: 'a' },
    );
    await expect(call).rejects.toMatchObject({
      code: 'LLM_PROVIDER_UNAVAILABLE',
      message: expect.stringContaining('no response within 100 ms'),
    });
  });

  it('cuts the upstream stream off when the client leaves after the first chunk', async () => {
    upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[]}\n\n'); // and nothing more until the connection closes
    });
    const clientGone = new CallAbort();
    const answer = await proxyTo(upstream.url).forwardChatCompletion(
      { model: 'up/m', stream: true, messages: MESSAGES },
      { agent: 'a', signal: clientGone },
    );
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    expect(Buffer.from((await reader.read()).value ?? []).toString()).toBe('data: {"choices":[]}\n\n');
    const ended = reader.read();
    clientGone.abort(new Error('the client closed the connection'));
    await ended.catch(() => undefined);
    await expect.poll(() => upstream?.cutOff).toBe(1);
  });

  it('rejects at once, sending nothing more, when the client has left before the call', async () => {
    upstream = await startUpstream(() => {});
    const clientGone = new CallAbort();
    clientGone.abort(new Error('the client closed the connection'));
    const call = proxyTo(upstream.url).forwardChatCompletion(
      { model: 'up/m', messages: MESSAGES },
      { agent: 'a', signal: clientGone },
    );
    await expect(call).rejects.toMatchObject({ message: 'the client went away' });
    expect(upstream.paths).toEqual([]);
  });
});
