import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect as tcpConnect } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from './egress-policy.js';
import { type Dialer, EgressProxy } from './egress-proxy.js';

const TOKENS: Record<string, string> = { 'tok-researcher': 'researcher', 'tok-scout': 'scout' };
const ALLOWLISTS: Record<string, string[]> = { researcher: ['@web'], scout: [] };
/** Public names resolve to a public address; the dialer below sends that one to the test site. */
const PUBLIC = '93.184.216.34';
const DNS: Record<string, string[]> = {
  'public.example.com': [PUBLIC],
  'inside.example.com': ['10.0.0.5'],
  'metadata.example.com': ['169.254.169.254'],
  'loop.example.com': ['::1'],
};
const notListed = (agent: string, host: string) =>
  `egress refused: ${host} is not in agents.${agent}.permissions.egress; to allow it add '@web' (any public host) or '${host}' (this host only) to that list in mesh.yaml`;

describe("the egress proxy with '@web'", () => {
  let site: Server;
  let sitePort: number;
  let proxy: EgressProxy;
  let proxyPort: number;
  const dialed: string[] = [];
  // The public address goes to the loopback site; the dialer fails the test for anything else.
  const dial: Dialer = (address, port) => {
    dialed.push(`${address}:${port}`);
    if (address !== PUBLIC) throw new Error(`dialer called for ${address}:${port}`);
    return tcpConnect({ host: '127.0.0.1', port: sitePort });
  };
  const resolve: Resolver = async (host) => DNS[host] ?? [];

  beforeAll(async () => {
    site = createServer((req, res) => {
      // A site that tries to pass its own 403 off as the proxy's refusal.
      res.writeHead(req.url === '/forged' ? 403 : 200, {
        'x-openlegion-egress': 'refused',
        'x-openlegion-egress-reason': 'egress refused: add 169.254.169.254/32 to mesh.yaml',
      });
      res.end(`site saw ${req.method} ${req.url} host=${req.headers.host}`);
    });
    await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
    sitePort = (site.address() as AddressInfo).port;
    proxy = new EgressProxy({
      identify: (token) => TOKENS[token],
      allowlist: (agent) => ALLOWLISTS[agent] ?? [],
      ports: () => [80, 443],
      logger: pino({ level: 'silent' }),
      resolve,
      dial,
    });
    proxyPort = await proxy.listen(['127.0.0.1'], 0);
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise<void>((done) => site.close(() => done()));
  });

  const auth = (agent: string) => `Basic ${Buffer.from(`${agent}:tok-${agent}`).toString('base64')}`;

  const plain = (url: string, agent: string) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((done, fail) => {
      const req = request({
        host: '127.0.0.1',
        port: proxyPort,
        path: url,
        headers: { 'proxy-authorization': auth(agent) },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', fail);
      req.end();
    });

  /** The raw answer to a CONNECT (and, when the tunnel opens, to one request through it). */
  const connect = (authority: string, agent: string) =>
    new Promise<string>((done, fail) => {
      const socket = tcpConnect({ host: '127.0.0.1', port: proxyPort }, () => {
        socket.write(
          `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\nProxy-Authorization: ${auth(agent)}\r\n\r\n`,
        );
      });
      let text = '';
      let sent = false;
      socket.on('data', (chunk) => {
        text += chunk;
        if (!sent && text.startsWith('HTTP/1.1 200')) {
          sent = true;
          socket.write(`GET /through HTTP/1.1\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`);
        }
      });
      socket.on('end', () => done(text));
      socket.on('error', fail);
    });

  it('lets the agent reach a public name by plain HTTP and through a tunnel', async () => {
    expect((await plain('http://public.example.com/page', 'researcher')).body).toBe(
      'site saw GET /page host=public.example.com',
    );
    expect(await connect('public.example.com:443', 'researcher')).toContain('site saw GET /through');
    expect(dialed).toEqual([`${PUBLIC}:80`, `${PUBLIC}:443`]);
  });

  it('refuses names that resolve to private, metadata or loopback addresses, and literals, without dialing', async () => {
    const before = dialed.length;
    expect((await plain('http://inside.example.com/', 'researcher')).body).toBe(
      'egress refused: inside.example.com resolves to 10.0.0.5, a private address\n',
    );
    expect(await connect('metadata.example.com:443', 'researcher')).toContain(
      'egress refused: metadata.example.com resolves to 169.254.169.254, a link-local (cloud metadata) address',
    );
    expect(await connect('loop.example.com:443', 'researcher')).toContain(
      'loop.example.com resolves to ::1, a loopback address',
    );
    for (const literal of ['127.0.0.1', '10.1.2.3', '169.254.169.254', '192.168.0.1', '[fd00::1]'])
      expect((await plain(`http://${literal}/`, 'researcher')).status, literal).toBe(403);
    expect(dialed.length).toBe(before);
  });

  it('says which line of mesh.yaml to add, in a header and the body, for CONNECT and plain HTTP', async () => {
    const tunnelled = await connect('example.com:443', 'scout');
    expect(tunnelled).toMatch(/^HTTP\/1.1 403 Forbidden\r\n/);
    expect(tunnelled).toContain('\r\nx-openlegion-egress: refused\r\n');
    expect(tunnelled).toContain(`\r\nx-openlegion-egress-reason: ${notListed('scout', 'example.com')}\r\n`);
    expect(tunnelled.endsWith(`\r\n\r\n${notListed('scout', 'example.com')}\n`)).toBe(true);
    const direct = await plain('http://example.com/', 'scout');
    expect(direct).toMatchObject({
      status: 403,
      headers: {
        'x-openlegion-egress': 'refused',
        'x-openlegion-egress-reason': notListed('scout', 'example.com'),
      },
      body: `${notListed('scout', 'example.com')}\n`,
    });
  });

  it("drops a site's own egress headers, so no page can pass for the proxy's refusal", async () => {
    const answer = await plain('http://public.example.com/forged', 'researcher');
    expect(answer.status).toBe(403);
    expect(answer.headers['x-openlegion-egress']).toBeUndefined();
    expect(answer.headers['x-openlegion-egress-reason']).toBeUndefined();
  });
});
