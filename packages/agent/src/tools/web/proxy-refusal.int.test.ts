import { createServer } from 'node:http';
import { EGRESS_REASON_HEADER, EGRESS_REFUSED_HEADER, TRACE_HEADER } from '@openlegion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Loopback, listen } from '../../../test/loopback-servers.js';
import { callTool } from '../../../test/tool-harness.js';
import { PageFetcher } from './page-fetcher.js';
import { createWebFetchTool } from './web-fetch-tool.js';

const workspace = '/nonexistent-workspace';

/** The host's refusal for `host`, word for word as its egress policy writes it. */
const refusal = (host: string) =>
  `egress refused: ${host} is not in agents.researcher.permissions.egress; to allow it add '@web' (any public host) or '${host}' (this host only) to that list in mesh.yaml`;

/**
 * A stand-in for the host's egress proxy that refuses everything the way the real one does: 403,
 * `x-openlegion-egress: refused`, the reason in its header and as the body, then close. It never
 * dials anywhere, so no packet leaves the machine.
 */
async function startRefusingEgressProxy(): Promise<Loopback & { seen: string[] }> {
  const seen: string[] = [];
  const headers = (host: string) => ({
    [EGRESS_REFUSED_HEADER]: 'refused',
    [EGRESS_REASON_HEADER]: refusal(host),
    'content-type': 'text/plain; charset=utf-8',
  });
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(403, headers(new URL(req.url ?? '').hostname)).end(`${refusal('?')}\n`);
  });
  server.on('connect', (req, socket) => {
    socket.on('error', () => {});
    seen.push(
      `CONNECT ${req.url}${req.headers[TRACE_HEADER] ? ` ${TRACE_HEADER}: ${req.headers[TRACE_HEADER]}` : ''}`,
    );
    const host = (req.url ?? '').replace(/:\d+$/, '');
    const body = `${refusal(host)}\n`;
    const head = Object.entries({ ...headers(host), 'content-length': String(Buffer.byteLength(body)) })
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
    socket.end(`HTTP/1.1 403 Forbidden\r\n${head}\r\nconnection: close\r\n\r\n${body}`);
  });
  return { ...(await listen(server)), seen };
}

describe('web_fetch refused by the egress proxy', () => {
  let proxy: Loopback & { seen: string[] };
  let fetcher: PageFetcher;
  beforeAll(async () => {
    proxy = await startRefusingEgressProxy();
    const url = proxy.url.replace('http://', 'http://researcher:proxy-token@');
    fetcher = new PageFetcher({
      proxy: { httpProxy: url, httpsProxy: url, noProxy: '' },
      timeoutMs: 5_000,
      maxBytes: 1024 * 1024,
      userAgent: 'test',
    });
  });
  afterAll(async () => {
    await fetcher.close();
    await proxy.close();
  });

  it("gives the proxy's reason, with the line of mesh.yaml to add, for https", async () => {
    const result = await callTool(
      createWebFetchTool({ fetcher }),
      { url: 'https://example.com/a' },
      { workspace },
    );
    expect(result).toEqual({ isError: true, text: `https://example.com/a: ${refusal('example.com')}` });
  });

  it("gives the proxy's reason, with the line of mesh.yaml to add, for plain http", async () => {
    const result = await callTool(
      createWebFetchTool({ fetcher }),
      { url: 'http://example.com/b' },
      { workspace },
    );
    expect(result).toEqual({ isError: true, text: `http://example.com/b: ${refusal('example.com')}` });
    // Tunnelled like https: the only answer the agent trusts as the proxy's is the CONNECT one.
    expect(proxy.seen).toContain('CONNECT example.com:80');
  });

  it("tells the proxy the turn's trace with each tunnel it asks for, and a new turn's trace after it", async () => {
    const tool = createWebFetchTool({ fetcher });
    await callTool(tool, { url: 'https://traced.example/1' }, { workspace, traceId: 'turn-one' });
    await callTool(tool, { url: 'https://traced.example/2' }, { workspace, traceId: 'turn-two' });
    expect(proxy.seen).toEqual(
      expect.arrayContaining([
        `CONNECT traced.example:443 ${TRACE_HEADER}: turn-one`,
        `CONNECT traced.example:443 ${TRACE_HEADER}: turn-two`,
      ]),
    );
  });

  it('names the status when a proxy refuses without a reason', async () => {
    const bare = await listen(
      createServer().on('connect', (_req, socket) => {
        socket.on('error', () => {});
        socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
      }),
    );
    const plain = new PageFetcher({
      proxy: { httpsProxy: bare.url, httpProxy: bare.url },
      timeoutMs: 5_000,
      maxBytes: 1024,
      userAgent: 'test',
    });
    try {
      await expect(plain.fetch('https://example.com/', new AbortController().signal)).rejects.toThrow(
        'https://example.com/: the egress proxy answered the tunnel request with HTTP 403',
      );
    } finally {
      await plain.close();
      await bare.close();
    }
  });
});
