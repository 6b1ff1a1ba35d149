import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect as tcpConnect } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EgressDecision, Resolver } from './egress-policy.js';
import { type Dialer, EgressProxy } from './egress-proxy.js';

const TOKENS: Record<string, string> = { 'tok-scout': 'scout', 'tok-writer': 'writer', 'tok-wild': 'wild' };
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
  // What any agent that browses the web gets.
  wild: ['*'],
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
  const resolve: Resolver = async (host: string) => {
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
      ports: (agent) => (agent === 'writer' ? [80, 443] : [80, 443, sitePort]),
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
      body: "egress refused: elsewhere.test is not in agents.scout.permissions.egress; to allow it add '@web' (any public host) or 'elsewhere.test' (this host only) to that list in mesh.yaml\n",
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
      ['::ffff:a9fe:a9fe (169.254.169.254)', 'link-local (cloud metadata)'],
      ['::1', 'loopback'],
      ['fd00:ec2::254', 'unique local (private)'],
      ['64:ff9b::a9fe:a9fe (169.254.169.254)', 'link-local (cloud metadata)'],
    ];
    for (const [address, reason] of cases) {
      const literal = address.split(' ')[0] ?? '';
      const decision = await proxy.decide('writer', literal.includes(':') ? `[${literal}]` : literal, 80);
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
  /** A raw CONNECT and whatever comes back before the proxy closes the connection. */
  const rawConnect = (authority: string, authorization: string) =>
    new Promise<string>((done, fail) => {
      const socket = tcpConnect({ host: '127.0.0.1', port: proxyPort }, () => {
        socket.write(`CONNECT ${authority} HTTP/1.1\r\nProxy-Authorization: ${authorization}\r\n\r\n`);
      });
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk;
      });
      socket.on('end', () => done(text));
      socket.on('error', fail);
    });

  const refusedDials = () => dialed.filter((target) => target !== `127.0.0.1:${sitePort}`);

  it('refuses loopback and metadata in every IPv6 spelling of an IPv4 address, with * allowed, without dialing', async () => {
    const loopback = ['127.0.0.1', 'loopback'];
    const metadata = ['169.254.169.254', 'link-local (cloud metadata)'];
    const cases: Array<[string, string[]]> = [
      ['0:0:0:0:0:ffff:7f00:1', loopback],
      ['::ffff:127.0.0.1', loopback],
      ['0:0:0:0:0:ffff:a9fe:a9fe', metadata],
      ['::ffff:a9fe:a9fe', metadata],
      ['64:ff9b::7f00:1', loopback],
      ['::7f00:1', loopback],
      ['::FFFF:7F00:1', loopback],
      ['0000:0000:0000:0000:0000:FFFF:A9FE:A9FE', metadata],
      ['0:0:0:0:0:FFFF:0A00:0001', ['10.0.0.1', 'private']],
      ['::ffff:0:7f00:1', loopback],
    ];
    for (const [spelling, [address, reason]] of cases) {
      const text = `${spelling} (${address}) is a ${reason} address`;
      // The exact reproduction: the host's own port (a test site here), then 80 and 443.
      for (const port of [sitePort, 80, 443]) {
        const answer = await rawConnect(`[${spelling}]:${port}`, auth('wild', 'tok-wild'));
        expect(answer, spelling).toMatch(/^HTTP\/1.1 403 Forbidden\r\n/);
        expect(answer, spelling).toContain(`egress refused: ${text}`);
      }
      const plain = await viaProxy(`http://[${spelling}]/`, auth('wild', 'tok-wild'));
      expect(plain.status, spelling).toBe(403);
      expect(plain.body, spelling).toContain(`is a ${reason} address`);
    }
    expect(refusedDials()).toEqual([]);
  });

  it('refuses the IPv6 forms that embed an IPv4 address without being it (6to4, Teredo, local-use NAT64)', async () => {
    const cases: Array<[string, string]> = [
      ['2002:7f00:1::1', '6to4 (embeds an IPv4 address)'],
      ['2002:5db8:d822::1', '6to4 (embeds an IPv4 address)'],
      ['2001:0:7f00:1::', 'Teredo (embeds an IPv4 address)'],
      ['64:ff9b:1::7f00:1', 'local-use NAT64 (embeds an IPv4 address)'],
      ['fec0::1', 'site-local (private)'],
      ['2001:db8::1', 'reserved (reserved)'],
    ];
    for (const [spelling, reason] of cases) {
      const answer = await rawConnect(`[${spelling}]:443`, auth('wild', 'tok-wild'));
      expect(answer, spelling).toContain(`egress refused: ${spelling} is a ${reason} address`);
    }
    expect(refusedDials()).toEqual([]);
  });

  it('dials the normalised address when a CIDR allows an IPv4 address spelled in IPv6', async () => {
    const before = dialed.length;
    const tunnelled = await tunnel(`[0:0:0:0:0:FFFF:7F00:0001]:${sitePort}`, auth('scout', 'tok-scout'));
    expect(tunnelled).toContain('HTTP/1.1 200 Connection Established');
    expect(dialed.slice(before)).toEqual([`127.0.0.1:${sitePort}`]);
  });

  it('answers 400 naming the port for a port that is not one, and keeps serving', async () => {
    for (const port of ['65536', 'abc', '0', '-1', '99999999999', '', '443.0', '1e3', '+443', '0x1bb']) {
      const answer = await rawConnect(`allowed.test:${port}`, auth('scout', 'tok-scout'));
      expect(answer, port).toMatch(/^HTTP\/1.1 400 Bad Request\r\n/);
      expect(answer, port).toContain(
        `egress: port "${port}" is not a port: write an integer from 1 to 65535`,
      );
      // The next request goes through.
      expect(await tunnel(`allowed.test:${sitePort}`, auth('scout', 'tok-scout'))).toContain(
        'site saw GET /through',
      );
    }
    const plain = await viaProxy('http://allowed.test:0/', auth('scout', 'tok-scout'));
    expect(plain).toEqual({
      status: 400,
      body: 'egress: port "0" is not a port: write an integer from 1 to 65535 in digits\n',
    });
    expect(refusedDials()).toEqual([]);
  });

  it('answers 400 for a malformed CONNECT authority, and keeps serving', async () => {
    const cases: Array<[string, string]> = [
      ['allowed.test', 'has no port'],
      ['[::1', 'is not a host name or IP address'],
      ['::1:443', 'is not a host name or IP address'],
      ['[not-an-address]:443', 'is not an IPv6 address'],
      ['[fe80::1%25eth0]:443', 'is not an IPv6 address'],
      [':443', 'the host is empty'],
      ['user@allowed.test:443', 'is not a host name or IP address'],
      [`${'a'.repeat(300)}:443`, 'longer than 255 characters'],
    ];
    for (const [authority, problem] of cases) {
      const answer = await rawConnect(authority, auth('scout', 'tok-scout'));
      expect(answer, authority).toMatch(/^HTTP\/1.1 400 Bad Request\r\n/);
      expect(answer, authority).toContain(problem);
    }
    expect(await tunnel(`allowed.test:${sitePort}`, auth('scout', 'tok-scout'))).toContain(
      'site saw GET /through',
    );
    expect(refusedDials()).toEqual([]);
  });

  it('refuses a port outside permissions.egress_ports (403 naming it), by CONNECT and plain HTTP', async () => {
    const refusal =
      'egress refused: port 22 is not in agents.scout.permissions.egress_ports (allowed: 80, 443, ' +
      `${sitePort}); add it there in mesh.yaml to allow it\n`;
    const answer = await rawConnect('allowed.test:22', auth('scout', 'tok-scout'));
    expect(answer).toMatch(/^HTTP\/1.1 403 Forbidden\r\n/);
    expect(answer.endsWith(refusal)).toBe(true);
    expect(await viaProxy('http://allowed.test:22/', auth('scout', 'tok-scout'))).toEqual({
      status: 403,
      body: refusal,
    });
    const resolvedBefore = resolved.length;
    expect(await proxy.decide('writer', 'public.test', 8080)).toMatchObject({ allowed: false });
    expect(resolved.length).toBe(resolvedBefore);
    expect(refusedDials()).toEqual([]);
  });

  it('answers 502, not a crash, when the dialer throws synchronously', async () => {
    const throwing = new EgressProxy({
      identify: (token) => TOKENS[token],
      allowlist: () => ['allowed.test', '127.0.0.1/32'],
      ports: () => [443],
      logger: pino({ level: 'silent' }),
      resolve,
      dial: () => {
        throw new RangeError('Port should be >= 0 and < 65536');
      },
    });
    const port = await throwing.listen(['127.0.0.1'], 0);
    try {
      const answer = await new Promise<string>((done, fail) => {
        const socket = tcpConnect({ host: '127.0.0.1', port }, () =>
          socket.write(
            `CONNECT allowed.test:443 HTTP/1.1\r\nProxy-Authorization: ${auth('scout', 'tok-scout')}\r\n\r\n`,
          ),
        );
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk;
        });
        socket.on('end', () => done(text));
        socket.on('error', fail);
      });
      expect(answer).toMatch(/^HTTP\/1.1 502 Bad Gateway\r\n/);
      expect(answer).toContain('egress: 127.0.0.1 failed: Port should be >= 0 and < 65536');
      const plain = await new Promise<{ status: number; body: string }>((done, fail) => {
        request({
          host: '127.0.0.1',
          port,
          path: 'http://allowed.test:443/',
          headers: { 'proxy-authorization': auth('scout', 'tok-scout') },
        })
          .on('response', (res) => {
            let body = '';
            res.on('data', (chunk) => {
              body += chunk;
            });
            res.on('end', () => done({ status: res.statusCode ?? 0, body }));
          })
          .on('error', fail)
          .end();
      });
      expect(plain).toEqual({
        status: 502,
        body: 'egress: allowed.test:443 failed: Port should be >= 0 and < 65536\n',
      });
    } finally {
      await throwing.close();
    }
  });

  it('answers 500, not a crash, when a handler throws', async () => {
    const broken = new EgressProxy({
      identify: () => {
        throw new Error('registry exploded');
      },
      allowlist: () => ['*'],
      ports: () => [443],
      logger: pino({ level: 'silent' }),
      resolve,
      dial,
    });
    const port = await broken.listen(['127.0.0.1'], 0);
    try {
      const plain = await new Promise<number>((done, fail) => {
        request({
          host: '127.0.0.1',
          port,
          path: 'http://x.test/',
          headers: { 'proxy-authorization': auth('a', 'b') },
        })
          .on('response', (res) => {
            res.resume();
            done(res.statusCode ?? 0);
          })
          .on('error', fail)
          .end();
      });
      expect(plain).toBe(500);
    } finally {
      await broken.close();
    }
  });
});
