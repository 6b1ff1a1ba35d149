import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorBody, isOpenLegionError, type OpenLegionError } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createJsonClient } from './index.js';

interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A loopback server answering every request with `answer`, recording what it was sent. */
async function serve(answer: (response: ServerResponse) => void): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      });
      answer(response);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json = (status: number, body: unknown) => (response: ServerResponse) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

async function failureOf(promise: Promise<unknown>): Promise<OpenLegionError> {
  try {
    await promise;
  } catch (error) {
    if (isOpenLegionError(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

const pointSchema = z.object({ x: z.number(), y: z.number() });

describe('createJsonClient', () => {
  it('sends the bearer token, a JSON body and the given headers, and parses the answer', async () => {
    const server = await serve(json(200, { x: 1, y: 2 }));
    const client = createJsonClient({ baseUrl: `${server.url}/`, token: 'secret' });
    const point = await client.call(
      {
        method: 'POST',
        path: '/points?limit=1',
        body: { a: 1 },
        headers: { 'x-trace-id': 't-1', skipped: undefined },
      },
      pointSchema,
    );
    expect(point).toEqual({ x: 1, y: 2 });
    expect(server.seen[0]).toMatchObject({
      method: 'POST',
      url: '/points?limit=1',
      body: '{"a":1}',
      headers: { authorization: 'Bearer secret', 'content-type': 'application/json', 'x-trace-id': 't-1' },
    });
    expect(server.seen[0]?.headers).not.toHaveProperty('skipped');
  });

  it("throws the code and message of the server's error body", async () => {
    const server = await serve(json(404, errorBody('AGENT_UNKNOWN', 'no agent "x"')));
    const client = createJsonClient({ baseUrl: server.url, token: 't' });
    const error = await failureOf(client.call({ method: 'GET', path: '/a' }, pointSchema));
    expect([error.code, error.message]).toEqual(['AGENT_UNKNOWN', 'no agent "x"']);
  });

  it('puts the prefix before the message of an error body', async () => {
    const server = await serve(json(401, errorBody('AUTH_INVALID', 'bad token')));
    const client = createJsonClient({
      baseUrl: server.url,
      token: 't',
      errorPrefix: (target, status) => `${target}: ${status} `,
    });
    const error = await failureOf(client.send({ method: 'GET', path: '/mesh/self' }));
    expect([error.code, error.message]).toEqual(['AUTH_INVALID', 'GET /mesh/self: 401 bad token']);
  });

  it('answers an error without an error body with INTERNAL naming the route and status', async () => {
    const server = await serve((response) => {
      response.writeHead(502);
      response.end('bad gateway');
    });
    const client = createJsonClient({ baseUrl: server.url, token: 't' });
    const error = await failureOf(client.send({ method: 'GET', path: '/x' }));
    expect([error.code, error.message]).toEqual(['INTERNAL', 'GET /x: 502 bad gateway']);
  });

  it('names the first wrong field of an answer the schema refuses', async () => {
    const server = await serve(json(200, { x: 1, y: 'two' }));
    const client = createJsonClient({ baseUrl: server.url, token: 't' });
    const error = await failureOf(client.call({ method: 'GET', path: '/p' }, pointSchema));
    expect([error.code, error.message]).toEqual(['INTERNAL', 'GET /p answered an invalid y']);
  });

  it('refuses a 2xx answer that is not JSON with INTERNAL', async () => {
    const server = await serve((response) => response.end('<html>'));
    const client = createJsonClient({ baseUrl: server.url, token: 't' });
    const error = await failureOf(client.send({ method: 'GET', path: '/p' }));
    expect([error.code, error.message]).toEqual([
      'INTERNAL',
      'GET /p answered something that is not JSON: <html>',
    ]);
  });

  it('returns a 304 with its headers and no body', async () => {
    const server = await serve((response) => {
      response.writeHead(304, { etag: '"v1"' });
      response.end();
    });
    const client = createJsonClient({ baseUrl: server.url, token: 't' });
    const answer = await client.send({ method: 'GET', path: '/i', headers: { 'if-none-match': '"v1"' } });
    expect([answer.status, answer.json, answer.headers.etag]).toEqual([304, undefined, '"v1"']);
    expect(server.seen[0]?.headers['if-none-match']).toBe('"v1"');
  });

  it('throws MESH_NOT_RUNNING, or the error unreachable makes, when nothing listens', async () => {
    const server = await serve(json(200, {}));
    await new Promise((resolve) => servers.splice(0)[0]?.close(resolve));
    const client = createJsonClient({ baseUrl: server.url, token: 't' });
    const error = await failureOf(client.send({ method: 'GET', path: '/mesh/self' }));
    expect(error.code).toBe('MESH_NOT_RUNNING');
    expect(error.message).toMatch(/^GET \/mesh\/self: host unreachable \(.*ECONNREFUSED/);
  });

  it('rejects with the abort reason, not an unreachable error, when its signal aborts', async () => {
    const server = await serve(() => {});
    const client = createJsonClient({ baseUrl: server.url, token: 't' });
    const controller = new AbortController();
    const pending = client.send({ method: 'GET', path: '/slow', signal: controller.signal });
    controller.abort(new Error('user pressed ctrl-c'));
    await expect(pending).rejects.toThrow('user pressed ctrl-c');
  });
});
