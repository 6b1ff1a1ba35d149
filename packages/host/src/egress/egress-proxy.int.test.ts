import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect as tcpConnect } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dialer, type EgressDecision, EgressProxy, type Resolver } from './egress-proxy.js';

const TOKENS: Record<string, string> = { 'tok-scout': 'scout', 'tok-writer': 'writer' };
const ALLOWLISTS: Record<string, string[]> = {
  // The test site is on 127.0.0.1: reachable only because a CIDR names it explicitly.
  scout: ['allowed.test', '127.0.0.1/32'],
  writer: [
    'rebind.test',
    'mixed.test',
    'public.test',
    '169.254.169.254',
    '10.0.0.1',
    '100.64.1.1',
    '::ffff:a9fe:a9fe',
    '::1',
    'fd00:ec2::254',
    '64:ff9b::a9fe:a9fe',
  ],
};
const DNS: Record<string, string[]> = {
  'allowed.test': ['127.0.0.1'],
  'rebind.test': ['127.0.0.1'],
  'mixed.test': ['93.184.216.34', '10.0.0.5'],
  'public.test': ['93.184.216.34'],
};

describe('egress proxy', () => {
  let site: Server;
  let sitePort: number;
  let proxy: EgressProxy;
  let proxyPort: number;
  const resolved: string[] = [];
  const dialed: string[] = [];
  const decisions: EgressDecision[] = [];
  // No packet may leave for a refused address: the dialer fails the test for anything but the site.
  const dial: Dialer = (address, port) => {
    dialed.push(`${address}:${port}`);
    if (address !== '127.0.0.1' || port !== sitePort) throw new Error(`dialer called for ${address}:${port}`);
    return tcpConnect({ host: address, port });
  };
  const resolve: Resolver = async (host) => {
    resolved.push(host);
    return DNS[host] ?? [];
  };

  beforeAll(async () => {
    site = createServer((req, res) => res.end(`site saw ${req.method} ${req.url} host=${req.headers.host}`));
    await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
    sitePort = (site.address() as AddressInfo).port;
    proxy = new EgressProxy({
      identify: (token) => TOKENS[token],
      allowlist: (agent) => ALLOWLISTS[agent] ?? [],
      logger: pino({ level: 'silent' }),
      resolve,
      dial,
      onDecision: (decision) => decisions.push(decision),
    });
    proxyPort = await proxy.listen(['127.0.0.1'], 0);
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise<void>((done) => site.close(() => done()));
  });

  const auth = (agent: string, token: string) =>
    `Basic ${Buffer.from(`${agent}:${token}`).toString('base64')}`;

  /** A plain HTTP request through the proxy; status and body. */
  const viaProxy = (url: string, authorization?: string) =>
    new Promise<{ status: number; body: string }>((done, fail) => {
      const req = request({
        host: '127.0.0.1',
        port: proxyPort,
        path: url,
        headers: authorization ? { 'proxy-authorization': authorization } : {},
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', fail);
      req.end();
    });

  /** A CONNECT through the proxy, then one HTTP request over the tunnel; the raw answers. */
  const tunnel = (authority: string, authorization: string) =>
    new Promise<string>((done, fail) => {
      const socket = tcpConnect({ host: '127.0.0.1', port: proxyPort }, () => {
        socket.write(
          `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\nProxy-Authorization: ${authorization}\r\n\r\n`,
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

  it('lets an agent reach an allowed name, by plain HTTP and through a CONNECT tunnel', async () => {
    const plain = await viaProxy(`http://allowed.test:${sitePort}/page?q=1`, auth('scout', 'tok-scout'));
    expect(plain).toEqual({ status: 200, body: `site saw GET /page?q=1 host=allowed.test:${sitePort}` });
    const tunnelled = await tunnel(`allowed.test:${sitePort}`, auth('scout', 'tok-scout'));
    expect(tunnelled).toContain('HTTP/1.1 200 Connection Established');
    expect(tunnelled).toContain('site saw GET /through');
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(2);
  });

  it("asks for credentials (407) without them or with another agent's token", async () => {
    expect((await viaProxy(`http://allowed.test:${sitePort}/`)).status).toBe(407);
    expect((await viaProxy(`http://allowed.test:${sitePort}/`, auth('scout', 'tok-writer'))).status).toBe(
      407,
    );
    expect(await tunnel(`allowed.test:${sitePort}`, auth('writer', 'nope'))).toMatch(/^HTTP\/1.1 407/);
  });

  it('refuses names outside the list before resolving them, and names that resolve to private addresses', async () => {
    const resolvedBefore = resolved.length;
    const outside = await viaProxy('http://elsewhere.test/', auth('scout', 'tok-scout'));
    expect(outside).toEqual({
      status: 403,
      body: 'egress refused: elsewhere.test is not in agents.scout.permissions.egress\n',
    });
    expect(resolved.length).toBe(resolvedBefore);
    expect((await viaProxy('http://rebind.test/', auth('writer', 'tok-writer'))).body).toBe(
      'egress refused: rebind.test resolves to 127.0.0.1, a loopback address\n',
    );
    expect(await tunnel('mixed.test:443', auth('writer', 'tok-writer'))).toContain(
      'mixed.test resolves to 10.0.0.5, a private address',
    );
  });

  it('refuses literal private, metadata, CGNAT and IPv6 forms even when listed, without dialing', async () => {
    const cases: Array<[string, string]> = [
      ['169.254.169.254', 'link-local (cloud metadata)'],
      ['10.0.0.1', 'private'],
      ['100.64.1.1', 'carrier-grade NAT'],
      ['::ffff:a9fe:a9fe', 'link-local (cloud metadata)'],
      ['::1', 'loopback'],
      ['fd00:ec2::254', 'unique local (private)'],
      ['64:ff9b::a9fe:a9fe', 'link-local (cloud metadata)'],
    ];
    for (const [address, reason] of cases) {
      const decision = await proxy.decide('writer', address.includes(':') ? `[${address}]` : address, 80);
      expect(decision, address).toMatchObject({
        allowed: false,
        reason: `${address} is a ${reason} address`,
      });
    }
    expect(await tunnel('[::ffff:169.254.169.254]:80', auth('writer', 'tok-writer'))).toMatch(
      /^HTTP\/1.1 403/,
    );
    expect(await tunnel('169.254.169.254:80', auth('writer', 'tok-writer'))).toMatch(/^HTTP\/1.1 403/);
    expect(dialed.every((target) => target === `127.0.0.1:${sitePort}`)).toBe(true);
  });

  it('refuses an unknown agent everything', async () => {
    expect(await proxy.decide('ghost', 'allowed.test', 80)).toMatchObject({ allowed: false });
  });
});
