import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findFreePort } from '@openlegion/infra/http';
import type { MeshConfigInput } from '@openlegion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FeatureTestHost,
  startFeatureTestHost,
  TEST_OPERATOR_TOKEN,
} from '../../test/feature-test-host.js';
import { costsFeature, USAGE_RECORDED } from '../costs/index.js';
import { dashboardFeature, sessionCookieName } from './index.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Real HTTP on loopback (the dashboard checks the listener's address), with any Host header. */
function send(
  port: number,
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, method, path: url, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const errorOf = (answer: Answer) =>
  (JSON.parse(answer.body) as { error: { code: string; message: string } }).error;

describe('the dashboard at /ui: sign-in, cookie, CSRF, Host and Origin, CSP', () => {
  let host: FeatureTestHost;
  let port: number;
  let dir: string;
  let origin: string;
  const config = (enabled: boolean, meshPort: number): MeshConfigInput => ({
    mesh: { port: meshPort },
    llm: { providers: { openai: { api_key: 'env:OPENAI_API_KEY' } } },
    agents: { a: {} },
    dashboard: { enabled, session_ttl_minutes: 60 },
  });

  const signIn = async () => {
    const answer = await send(port, 'POST', '/ui/api/login', {
      authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
      origin,
    });
    expect(answer.status).toBe(200);
    const cookie = String(answer.headers['set-cookie']).split(';')[0] ?? '';
    return { cookie, csrf: (JSON.parse(answer.body) as { csrf: string }).csrf };
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'dashboard-int-'));
    await mkdir(path.join(dir, 'assets'));
    await writeFile(
      path.join(dir, 'index.html'),
      '<!doctype html><html><head><script type="module" src="/ui/assets/app-1.js"></script></head><body></body></html>',
    );
    await writeFile(path.join(dir, 'assets', 'app-1.js'), 'console.log(1)');
    port = await findFreePort('127.0.0.1');
    origin = `http://127.0.0.1:${port}`;
    host = await startFeatureTestHost(
      [costsFeature(), dashboardFeature({ assetsDir: dir })],
      config(true, port),
    );
    await host.app.listen({ host: '127.0.0.1', port });
  });
  afterAll(async () => {
    await host?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the page with a strict Content-Security-Policy and no inline script', async () => {
    const page = await send(port, 'GET', '/ui');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
    const file = await send(port, 'GET', '/ui/assets/app-1.js');
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(file.headers['cache-control']).toContain('immutable');
    const missing = await send(port, 'GET', '/ui/assets/nope.js');
    expect(missing.status).toBe(404);
    expect(errorOf(missing)).toEqual({
      code: 'NOT_FOUND',
      message: 'no dashboard file "assets/nope.js"',
      retryable: false,
    });
  });

  it('answers a page asked for under a forged Host (DNS rebinding) with a page that says why', async () => {
    const page = await send(port, 'GET', '/ui', { host: `evil.example:${port}` });
    expect(page.status).toBe(403);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain('<strong>DASHBOARD_ORIGIN_REFUSED</strong>');
    expect(page.body).toContain(`the dashboard does not answer for Host &#34;evil.example:${port}&#34;`);
  });

  it('refuses sign-in with a wrong token, an agent token, or without an Origin', async () => {
    const wrong = await send(port, 'POST', '/ui/api/login', {
      authorization: 'Bearer not-the-token',
      origin,
    });
    expect(wrong.status).toBe(401);
    expect(errorOf(wrong).code).toBe('AUTH_INVALID');
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const agent = await send(port, 'POST', '/ui/api/login', { ...host.agentAuth('a'), origin });
    expect(agent.status).toBe(403);
    expect(errorOf(agent)).toMatchObject({
      code: 'AUTH_FORBIDDEN',
      message: 'this route needs the operator token',
    });
    const noOrigin = await send(port, 'POST', '/ui/api/login', {
      authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
    });
    expect(noOrigin.status).toBe(403);
    expect(errorOf(noOrigin)).toMatchObject({
      code: 'DASHBOARD_ORIGIN_REFUSED',
      message: 'a change from a browser must say its Origin',
    });
    const crossSite = await send(port, 'POST', '/ui/api/login', {
      authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
      origin: 'https://evil.example',
    });
    expect(crossSite.status).toBe(403);
    expect(errorOf(crossSite).message).toBe(
      'a page from https://evil.example may not use this dashboard (cross-site request refused)',
    );
  });

  it('signs in with the operator token: an HttpOnly, SameSite=Strict cookie (not Secure over plain HTTP)', async () => {
    const answer = await send(port, 'POST', '/ui/api/login', {
      authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
      origin,
    });
    expect(answer.status).toBe(200);
    const cookie = String(answer.headers['set-cookie']);
    expect(cookie).toMatch(
      new RegExp(
        `^${sessionCookieName(port)}=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict; Max-Age=3600$`,
      ),
    );
    expect(cookie).not.toContain(TEST_OPERATOR_TOKEN);
    const body = JSON.parse(answer.body) as { csrf: string; expires_at: string };
    expect(body.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('lets the session read the operator API, and change things only with its CSRF token and Origin', async () => {
    const { cookie, csrf } = await signIn();
    const read = await send(port, 'GET', '/api/costs', { cookie });
    expect(read.status).toBe(200);
    const session = await send(port, 'GET', '/ui/api/session', { cookie });
    expect(JSON.parse(session.body)).toMatchObject({ signed_in: true, csrf });

    const noCsrf = await send(port, 'POST', '/ui/api/logout', { cookie, origin });
    expect(noCsrf.status).toBe(403);
    expect(errorOf(noCsrf)).toMatchObject({
      code: 'DASHBOARD_CSRF_MISSING',
      message:
        "this change was sent without the session's CSRF token (header x-csrf-token); reload the dashboard",
    });
    const wrongCsrf = await send(port, 'POST', '/ui/api/logout', { cookie, origin, 'x-csrf-token': 'guess' });
    expect(errorOf(wrongCsrf).code).toBe('DASHBOARD_CSRF_MISSING');
    const forgedOrigin = await send(port, 'POST', '/ui/api/logout', {
      cookie,
      origin: 'http://evil.example',
      'x-csrf-token': csrf,
    });
    expect(forgedOrigin.status).toBe(403);
    expect(errorOf(forgedOrigin).code).toBe('DASHBOARD_ORIGIN_REFUSED');
    const rebound = await send(port, 'GET', '/api/costs', { cookie, host: `rebound.example:${port}` });
    expect(rebound.status).toBe(403);
    expect(errorOf(rebound).code).toBe('DASHBOARD_ORIGIN_REFUSED');

    const out = await send(port, 'POST', '/ui/api/logout', { cookie, origin, 'x-csrf-token': csrf });
    expect(out.status).toBe(200);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    const after = await send(port, 'GET', '/api/costs', { cookie });
    expect(after.status).toBe(401);
    expect(errorOf(after)).toMatchObject({
      code: 'DASHBOARD_SESSION_INVALID',
      message: 'your dashboard session has expired or was signed out; sign in again with the operator token',
    });
  });

  it('ends a session after dashboard.session_ttl_minutes', async () => {
    const { cookie } = await signIn();
    await host.clock.advance(60 * 60_000);
    const answer = await send(port, 'GET', '/api/costs', { cookie });
    expect(answer.status).toBe(401);
    expect(errorOf(answer).code).toBe('DASHBOARD_SESSION_INVALID');
  });

  it('leaves bearer callers (the CLI) as they were, and never takes a made-up cookie for the operator', async () => {
    const cli = await send(port, 'GET', '/api/costs', {
      authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
      host: 'anything:1',
    });
    expect(cli.status).toBe(200);
    const agentWithCookie = await send(port, 'GET', '/api/costs', {
      ...host.agentAuth('a'),
      cookie: `${sessionCookieName(port)}=x`,
    });
    expect(agentWithCookie.status).toBe(403);
    expect(errorOf(agentWithCookie).code).toBe('AUTH_FORBIDDEN');
    const madeUp = await send(port, 'GET', '/api/costs', { cookie: `${sessionCookieName(port)}=made-up` });
    expect(errorOf(madeUp).code).toBe('DASHBOARD_SESSION_INVALID');
  });

  it('streams the host events on one SSE stream, and serves the cost series', async () => {
    const { cookie } = await signIn();
    const received = new Promise<string>((resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port, path: '/ui/api/events', headers: { host: `127.0.0.1:${port}`, cookie } },
        (response) => {
          expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
            if (text.includes('event: hello'))
              host.context.events.emit(USAGE_RECORDED, {
                at: host.clock.now(),
                agent: 'a',
                billed_to: 'a',
                model: 'openai/gpt',
                prompt_tokens: 1,
                completion_tokens: 2,
                cached_tokens: 0,
                cost_usd: 0.5,
                request_id: 'r',
                trace_id: null,
                estimated: 0,
              });
            if (text.includes('event: usage')) {
              request.destroy();
              resolve(text);
            }
          });
        },
      );
      request.on('error', reject);
      request.end();
    });
    expect(await received).toContain('"cost_usd":0.5');
    const series = await send(port, 'GET', '/ui/api/costs/series?hours=2', { cookie });
    expect(JSON.parse(series.body)).toMatchObject({ bucket_ms: 180_000, points: [] });
    const bad = await send(port, 'GET', '/ui/api/costs/series?hours=0', { cookie });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).code).toBe('REQUEST_INVALID');
  });
});

describe('with dashboard.enabled: false', () => {
  it('serves no /ui and takes no session cookie', async () => {
    const port = await findFreePort('127.0.0.1');
    const host = await startFeatureTestHost([costsFeature(), dashboardFeature()], {
      mesh: { port },
      llm: { providers: { openai: { api_key: 'env:OPENAI_API_KEY' } } },
      agents: { a: {} },
      dashboard: { enabled: false },
    });
    await host.app.listen({ host: '127.0.0.1', port });
    try {
      expect((await send(port, 'GET', '/ui')).status).toBe(404);
      const withCookie = await send(port, 'GET', '/api/costs', { cookie: `${sessionCookieName(port)}=x` });
      expect(errorOf(withCookie).code).toBe('AUTH_MISSING');
    } finally {
      await host.stop();
    }
  });
});
