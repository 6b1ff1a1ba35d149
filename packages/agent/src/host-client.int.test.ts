import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentSelf, agentSelfSchema, errorBody, OpenLegionError } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createHostClient } from './host-client.js';

const self: AgentSelf = agentSelfSchema.parse({ agent: 'a', mesh: 'm', role: 'r', model: 'p/m', soul: '' });

/** A loopback host answering each request with the next scripted [status, body]. */
async function scriptedHost(
  answers: [number, unknown][],
): Promise<{ url: string; hits: () => number; server: Server }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    const [status, body] = answers[Math.min(hits, answers.length - 1)] ?? [500, {}];
    hits++;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, hits: () => hits, server };
}

async function failureOf(promise: Promise<unknown>): Promise<OpenLegionError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (error instanceof OpenLegionError) return error;
  throw new Error(`expected an OpenLegionError, got ${String(error)}`);
}

describe('createHostClient', () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.close();
  });

  it('retries a busy host and returns the self it then sends', async () => {
    const host = await scriptedHost([
      [503, errorBody('AGENT_NOT_READY', 'busy')],
      [200, self],
    ]);
    server = host.server;
    const client = createHostClient({ meshUrl: host.url, token: 't', retryDelaysMs: [1, 1] });
    expect(await client.getSelf()).toEqual(self);
  });

  it('fails at once with the host error code on a rejected token', async () => {
    const host = await scriptedHost([[401, errorBody('AUTH_INVALID', 'unknown token')]]);
    server = host.server;
    const client = createHostClient({ meshUrl: host.url, token: 't', retryDelaysMs: [1, 1] });
    const error = await failureOf(client.getSelf());
    expect([error.code, host.hits()]).toEqual(['AUTH_INVALID', 1]);
  });

  it('gives up on an unreachable host with MESH_NOT_RUNNING', async () => {
    const host = await scriptedHost([[200, self]]);
    await new Promise((resolve) => host.server.close(resolve));
    const client = createHostClient({ meshUrl: host.url, token: 't', retryDelaysMs: [1] });
    expect((await failureOf(client.getSelf())).code).toBe('MESH_NOT_RUNNING');
  });

  it('names the field of an invalid self', async () => {
    const host = await scriptedHost([[200, { ...self, model: 7 }]]);
    server = host.server;
    const client = createHostClient({ meshUrl: host.url, token: 't', retryDelaysMs: [] });
    expect((await failureOf(client.getSelf())).message).toContain('model');
  });

  it('reports ready with a bearer token and a JSON body', async () => {
    let seen: { authorization: string | undefined; body: string } | undefined;
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        seen = { authorization: req.headers.authorization, body };
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await createHostClient({ meshUrl: `http://127.0.0.1:${port}`, token: 't0k' }).reportReady({
      version: '1',
    });
    expect(seen).toEqual({ authorization: 'Bearer t0k', body: '{"version":"1"}' });
  });
});
