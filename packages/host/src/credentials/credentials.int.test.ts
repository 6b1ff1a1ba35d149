import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { MeshConfigInput } from '@openlegion/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { parseMeshConfig } from '../config/index.js';
import { environmentSecrets } from '../secrets/index.js';
import { credentialsFeature, type EgressDecider } from './credentials-feature.js';

const SECRET = 'ghp_0123456789secretvalue';
const BOT = '123456:bot-token-value';
const MIB = 1024 * 1024;
/** The names the fake egress lets through; each resolves to the echo server on loopback. */
const ALLOWED = new Set(['api.github.test', 'files.example.test']);

/** An API that gives back what it got, in the encoding the path asks for. */
function echo(
  req: IncomingMessage,
  body: string,
): { status?: number; headers?: Record<string, string>; body: string | Buffer } {
  const url = new URL(req.url ?? '/', 'http://x');
  const auth = req.headers.authorization ?? '';
  const as = url.pathname.split('/')[1];
  if (as === 'base64') return { body: Buffer.from(auth).toString('base64') };
  if (as === 'base64url') return { body: Buffer.from(`xx${auth}`).toString('base64url') };
  if (as === 'hex') return { body: Buffer.from(auth).toString('hex').toUpperCase() };
  if (as === 'urlencoded')
    return { body: `seen=${encodeURIComponent(auth)}&form=${new URLSearchParams({ a: auth })}` };
  if (as === 'reversed') return { body: [...auth].reverse().join('') };
  if (as === 'location') return { status: 302, headers: { location: `https://x.test/?t=${auth}` }, body: '' };
  if (as === 'gzip') return { headers: { 'content-encoding': 'gzip' }, body: gzipSync(auth) };
  if (as === 'pad') {
    // The token begins 10 bytes before the 1 MiB cap, so the cap falls inside it.
    const before = MIB - 10 - 'Bearer '.length;
    return { body: `${'x'.repeat(before)}${auth}${'y'.repeat(2 * MIB)}` };
  }
  if (as === 'stored') return { body: `stored: ${stored}` };
  stored = auth;
  return {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: req.url, authorization: auth, other: req.headers['x-other'], body }),
  };
}
let stored = '';

/** An answer that never ends: fast (`/endless`) or one byte at a time (`/drip`), until the client hangs up. */
function stream(path: string, res: ServerResponse): void {
  res.writeHead(200);
  const chunk = path === '/endless' ? 'z'.repeat(64 * 1024) : 'z';
  const timer = setInterval(() => res.write(chunk), path === '/endless' ? 1 : 200);
  res.on('close', () => {
    clearInterval(timer);
    hungUp.push(path);
  });
}
const hungUp: string[] = [];

describe('credentials bound to hosts and places', () => {
  let site: Server;
  let port: number;
  const seen: Array<{
    host: string | undefined;
    url: string;
    authorization: string | undefined;
    body: string;
  }> = [];
  const decided: string[] = [];
  let host: FeatureTestHost;

  // The egress decision the route asks: allowed names resolve to the loopback echo server, others are refused.
  const egress: EgressDecider = {
    async decide(_agent, name) {
      decided.push(name);
      return ALLOWED.has(name)
        ? { allowed: true, address: '127.0.0.1' }
        : { allowed: false, reason: `${name} is not allowed` };
    },
  };

  beforeAll(async () => {
    site = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        seen.push({
          host: req.headers.host,
          url: req.url ?? '',
          authorization: req.headers.authorization,
          body,
        });
        if (req.url === '/endless' || req.url === '/drip') return stream(req.url, res);
        const answer = echo(req, body);
        res.writeHead(answer.status ?? 200, answer.headers ?? {});
        res.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    port = (site.address() as AddressInfo).port;
    const config: MeshConfigInput = {
      llm: { providers: { openai: {} } },
      agents: {
        coder: {
          permissions: {
            credentials: {
              GITHUB_TOKEN: { hosts: ['api.github.test'], in: 'header:authorization' },
              BOT_TOKEN: { hosts: ['*.example.test'], in: ['path', 'query:token'] },
              MISSING_TOKEN: { hosts: ['api.github.test'], in: 'body' },
            },
          },
        },
        writer: {},
      },
    };
    host = await startFeatureTestHost([credentialsFeature({ egress })], config, {
      secrets: environmentSecrets({ GITHUB_TOKEN: SECRET, BOT_TOKEN: BOT }),
    });
  });
  afterAll(async () => {
    await host.stop();
    await new Promise<void>((resolve) => site.close(() => resolve()));
  });
  beforeEach(() => {
    seen.length = 0;
    decided.length = 0;
  });

  const github = (path = '/') => `http://api.github.test:${port}${path}`;
  const http = (agent: string, payload: object) =>
    host.app.inject({ method: 'POST', url: '/mesh/http', headers: host.agentAuth(agent), payload });
  const withToken = (path: string) =>
    http('coder', { url: github(path), headers: { Authorization: 'Bearer $CRED{GITHUB_TOKEN}' } });

  it('lists each usable credential with the hosts and places it may go', async () => {
    const listed = await host.app.inject({ url: '/mesh/vault', headers: host.agentAuth('coder') });
    expect(listed.json()).toEqual({
      credentials: [
        { name: 'GITHUB_TOKEN', hosts: ['api.github.test'], in: ['header:authorization'] },
        { name: 'BOT_TOKEN', hosts: ['*.example.test'], in: ['path', 'query:token'] },
      ],
    });
    expect(listed.body).not.toContain(SECRET);
  });

  it("lists every agent's credentials by name for the operator, whether set, never a value", async () => {
    const listed = await host.app.inject({ url: '/api/credentials', headers: host.operatorAuth });
    expect(listed.json()).toEqual({
      credentials: [
        {
          agent: 'coder',
          name: 'GITHUB_TOKEN',
          hosts: ['api.github.test'],
          in: ['header:authorization'],
          set: true,
        },
        {
          agent: 'coder',
          name: 'BOT_TOKEN',
          hosts: ['*.example.test'],
          in: ['path', 'query:token'],
          set: true,
        },
        { agent: 'coder', name: 'MISSING_TOKEN', hosts: ['api.github.test'], in: ['body'], set: false },
      ],
    });
    expect(listed.body).not.toContain(SECRET);
    expect(listed.body).not.toContain(BOT);
    const byAgent = await host.app.inject({ url: '/api/credentials', headers: host.agentAuth('coder') });
    expect(byAgent.statusCode).toBe(403);
  });

  it('fills a credential in its granted header (any case) and scrubs it from the echo', async () => {
    const answer = await withToken('/repos');
    expect(answer.statusCode).toBe(200);
    expect(seen).toEqual([
      { host: `api.github.test:${port}`, url: '/repos', authorization: `Bearer ${SECRET}`, body: '' },
    ]);
    expect(answer.body).not.toContain(SECRET);
    expect(JSON.parse(answer.json().body)).toMatchObject({ authorization: 'Bearer [$CRED{GITHUB_TOKEN}]' });
  });

  it('fills a credential in the path and a granted query parameter', async () => {
    const answer = await http('coder', {
      url: `http://files.example.test:${port}/bot$CRED{BOT_TOKEN}/send?token=$CRED{BOT_TOKEN}`,
      query: { token2: 'plain' },
    });
    expect(answer.statusCode).toBe(200);
    expect(seen[0]?.url).toBe(`/bot${BOT}/send?token=${encodeURIComponent(BOT)}&token2=plain`);
    expect(answer.body).not.toContain('bot-token-value');
  });

  it.each([
    [
      'another header',
      { headers: { 'x-other': '$CRED{GITHUB_TOKEN}' } },
      '$CRED{GITHUB_TOKEN} may not be sent in header:x-other to api.github.test: agents.coder.permissions.credentials.GITHUB_TOKEN allows header:authorization to api.github.test',
    ],
    [
      'the body',
      { method: 'POST', body: { token: '$CRED{GITHUB_TOKEN}' } },
      '$CRED{GITHUB_TOKEN} may not be sent in body to api.github.test: agents.coder.permissions.credentials.GITHUB_TOKEN allows header:authorization to api.github.test',
    ],
    [
      'a query parameter',
      { query: { access_token: '$CRED{GITHUB_TOKEN}' } },
      '$CRED{GITHUB_TOKEN} may not be sent in query:access_token to api.github.test: agents.coder.permissions.credentials.GITHUB_TOKEN allows header:authorization to api.github.test',
    ],
    [
      'the url path',
      { url: 'http://api.github.test/$CRED{GITHUB_TOKEN}' },
      '$CRED{GITHUB_TOKEN} may not be sent in path to api.github.test: agents.coder.permissions.credentials.GITHUB_TOKEN allows header:authorization to api.github.test',
    ],
    [
      'a host not in its hosts',
      { url: 'http://files.example.test/', headers: { authorization: 'Bearer $CRED{GITHUB_TOKEN}' } },
      '$CRED{GITHUB_TOKEN} may not be sent in header:authorization to files.example.test: agents.coder.permissions.credentials.GITHUB_TOKEN allows header:authorization to api.github.test',
    ],
    [
      'the url host',
      { url: 'http://$CRED{GITHUB_TOKEN}.api.github.test/' },
      '$CRED{GITHUB_TOKEN} may not be sent in url host to $cred{github_token}.api.github.test: agents.coder.permissions.credentials.GITHUB_TOKEN allows header:authorization to api.github.test',
    ],
    [
      'a query parameter name',
      { query: { 'k$CRED{BOT_TOKEN}': 'v' }, url: 'http://files.example.test/' },
      '$CRED{BOT_TOKEN} may not be sent in query name to files.example.test: agents.coder.permissions.credentials.BOT_TOKEN allows path or query:token to *.example.test',
    ],
  ])(
    'refuses a credential in %s with 403 MESH_CREDENTIAL_FORBIDDEN, sending nothing',
    async (_where, call, message) => {
      const answer = await http('coder', { url: github('/'), ...call });
      expect(answer.statusCode).toBe(403);
      expect(answer.json().error).toMatchObject({ code: 'MESH_CREDENTIAL_FORBIDDEN', message });
      expect(decided).toEqual([]);
      expect(seen).toEqual([]);
    },
  );

  it('refuses a credential the agent is not granted, and one the vault lacks', async () => {
    const forbidden = await http('writer', {
      url: github(),
      headers: { authorization: '$CRED{GITHUB_TOKEN}' },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error).toMatchObject({
      code: 'MESH_FORBIDDEN',
      message:
        'agent "writer" may not credentials "GITHUB_TOKEN": agents.writer.permissions.credentials in mesh.yaml is []',
    });
    const missing = await http('coder', { method: 'POST', url: github(), body: '$CRED{MISSING_TOKEN}' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.message).toBe(
      '$CRED{MISSING_TOKEN}: no such credential (openlegion vault set MISSING_TOKEN)',
    );
    expect(seen).toEqual([]);
  });

  it.each([
    [
      'Host',
      'headers.Host: the host sets Host from the url (TLS checks that name too); put the host in the url',
    ],
    [
      'connection',
      'headers.connection: the host sets connection itself (it belongs to the connection, not the request); remove it',
    ],
    [
      'Transfer-Encoding',
      'headers.Transfer-Encoding: the host sets transfer-encoding itself (it belongs to the connection, not the request); remove it',
    ],
    [
      'proxy-authorization',
      'headers.proxy-authorization: the host sets proxy-authorization itself (it belongs to the connection, not the request); remove it',
    ],
    [
      'content-length',
      'headers.content-length: the host sets content-length itself (it belongs to the connection, not the request); remove it',
    ],
  ])('refuses an agent-set %s header with 400 REQUEST_INVALID', async (name, message) => {
    const answer = await http('coder', { url: github(), headers: { [name]: 'evil.test' } });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error).toMatchObject({ code: 'REQUEST_INVALID', message });
    expect(seen).toEqual([]);
  });

  it('refuses the same header twice in different case', async () => {
    const answer = await http('coder', {
      url: github(),
      headers: { authorization: 'Bearer $CRED{GITHUB_TOKEN}', AUTHORIZATION: 'x' },
    });
    expect(answer.json().error).toMatchObject({
      code: 'REQUEST_INVALID',
      message: 'headers.AUTHORIZATION: the header is given twice (header names ignore case); send it once',
    });
    // A header named like an object property is just a header.
    expect((await http('coder', { url: github(), headers: { constructor: 'x' } })).statusCode).toBe(200);
  });

  const MARK = '[$CRED{GITHUB_TOKEN}]';
  it.each([
    // base64 of "Bearer <token>": what is left of the token is the marker and at most one character
    // each side whose bits it shares with the text around it.
    ['base64', /^QmVhcmVyI.\[\$CRED\{GITHUB_TOKEN\}\].=?$/],
    ['base64url', /^eHhCZWFyZXIg\[\$CRED\{GITHUB_TOKEN\}\].?.?$/],
    ['hex', `${Buffer.from('Bearer ').toString('hex').toUpperCase()}${MARK}`],
    ['urlencoded', `seen=Bearer%20${MARK}&form=a=Bearer+${MARK}`],
    ['reversed', `${MARK} reraeB`],
  ])('scrubs the value from an echo that returns it %s', async (encoding, expected) => {
    const answer = await withToken(`/${encoding}`);
    expect(answer.statusCode).toBe(200);
    if (typeof expected === 'string') expect(answer.json().body).toBe(expected);
    else expect(answer.json().body).toMatch(expected);
  });

  it('scrubs the kept response headers', async () => {
    const answer = await withToken('/location');
    expect(answer.json().headers.location).toBe('https://x.test/?t=Bearer [$CRED{GITHUB_TOKEN}]');
  });

  it('scrubs a credential stored earlier from a later answer that used none', async () => {
    await withToken('/store');
    const later = await http('coder', { url: github('/stored') });
    expect(later.json().body).toBe('stored: Bearer [$CRED{GITHUB_TOKEN}]');
  });

  it('refuses a compressed answer it could not scrub', async () => {
    const answer = await http('coder', {
      url: github('/gzip'),
      headers: { authorization: 'Bearer $CRED{GITHUB_TOKEN}', 'accept-encoding': 'gzip' },
    });
    expect(answer.statusCode).toBe(502);
    expect(answer.json().error.message).toBe(
      `api.github.test:${port} answered compressed (content-encoding: gzip) though asked for identity; a compressed answer cannot be scrubbed of credentials, so it is not returned`,
    );
  });

  it('leaves no prefix of the value where the 1 MiB cap cuts through it', async () => {
    const answer = await withToken('/pad');
    const { body, truncated } = answer.json();
    expect(truncated).toBe(true);
    expect(body.endsWith(`${'x'.repeat(10)}Bearer [$CRED{GITHUB_TOKEN}]`)).toBe(true);
    expect(body).not.toContain(SECRET.slice(0, 8));
    expect(body).not.toContain('y');
  });

  it('stops reading an endless answer at the cap and hangs up', async () => {
    const answer = await http('coder', { url: github('/endless') });
    expect(answer.json()).toMatchObject({ status: 200, truncated: true });
    expect(answer.json().body).toHaveLength(MIB);
    await expect.poll(() => hungUp).toContain('/endless');
  });

  it('gives up an answer that drips on past timeout_s in all', async () => {
    const answer = await http('coder', { url: github('/drip'), timeout_s: 1 });
    expect(answer.statusCode).toBe(502);
    expect(answer.json().error).toMatchObject({
      code: 'MESH_HTTP_FAILED',
      message: `api.github.test:${port} did not answer within 1 s`,
    });
    await expect.poll(() => hungUp).toContain('/drip');
  });

  it('refuses a host outside egress without dialing it', async () => {
    const answer = await http('coder', { url: 'http://10.0.0.1/' });
    expect(answer.statusCode).toBe(403);
    expect(answer.json().error).toMatchObject({
      code: 'MESH_FORBIDDEN',
      message: 'egress refused: 10.0.0.1 is not allowed',
    });
    expect(decided).toEqual(['10.0.0.1']);
    expect(seen).toEqual([]);
  });
});

describe('config validation of credentials', () => {
  it('refuses the bare list form with the bound form to copy', () => {
    const text =
      'llm: { providers: { openai: {} } }\nagents:\n  a:\n    permissions:\n      credentials: [GITHUB_TOKEN]\n';
    expect(() => parseMeshConfig(text)).toThrow(
      'mesh.yaml: 1 problem\nmesh.yaml:5:20 agents.a.permissions.credentials: bind each credential to its hosts and place, e.g. credentials: { GITHUB_TOKEN: { hosts: [api.github.com], in: header:authorization } }',
    );
  });
});
