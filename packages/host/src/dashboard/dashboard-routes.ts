import { OpenLegionError } from '@openlegion/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkBrowserRequest, readCookie } from './browser-guard.js';
import type { DashboardAsset } from './dashboard-assets.js';
import { DASHBOARD_HEADERS, NOT_BUILT_PAGE, refusalPage } from './dashboard-pages.js';
import type { OperatorSessions } from './operator-sessions.js';

export interface DashboardRouteDeps {
  sessions: OperatorSessions;
  /** The session cookie's name (see `sessionCookieName`). */
  cookie: string;
  hosts: ReadonlySet<string>;
  ttlMs: number;
  /** The built files, loaded once on first use. */
  assets: () => Promise<Map<string, DashboardAsset>>;
}

const isDashboardPath = (url: string) => url === '/ui' || url.startsWith('/ui/') || url.startsWith('/ui?');

/**
 * `/ui`: the built dashboard's files (anyone on loopback may load the page; it holds no data) and
 * its sign-in. Every /ui request must come in on the loopback listener with an allowed Host (and
 * Origin, for a change); a page navigation that does not is answered with a page saying why.
 */
export function registerDashboardRoutes(app: FastifyInstance, deps: DashboardRouteDeps): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!isDashboardPath(request.url)) return;
    try {
      checkBrowserRequest(request, deps.hosts);
    } catch (error) {
      if (!(error instanceof OpenLegionError) || request.url.startsWith('/ui/api/')) throw error;
      return reply
        .code(error.status)
        .headers(DASHBOARD_HEADERS)
        .type('text/html; charset=utf-8')
        .send(refusalPage(error));
    }
  });

  const page = async (_request: FastifyRequest, reply: FastifyReply) => {
    const index = (await deps.assets()).get('index.html');
    void reply
      .headers({ ...DASHBOARD_HEADERS, 'cache-control': 'no-cache' })
      .type('text/html; charset=utf-8');
    if (!index) return reply.code(503).send(NOT_BUILT_PAGE);
    return reply.send(index.body);
  };
  app.get('/ui', { config: { auth: 'none' } }, page);
  app.get('/ui/', { config: { auth: 'none' } }, page);
  app.get('/ui/*', { config: { auth: 'none' } }, async (request, reply) => {
    const path = (request.params as { '*': string })['*'];
    const asset = (await deps.assets()).get(path);
    if (!asset || path === 'index.html')
      throw new OpenLegionError('NOT_FOUND', `no dashboard file "${path}"`);
    return reply
      .headers({
        ...DASHBOARD_HEADERS,
        'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      })
      .type(asset.type)
      .send(asset.body);
  });

  // Signing in takes the operator token as a bearer header (route auth checks it: an agent's token is
  // refused as AUTH_FORBIDDEN, a wrong one as AUTH_INVALID) and gives an HttpOnly cookie instead, so
  // the page's script never keeps the token.
  app.post('/ui/api/login', { config: { auth: 'operator' } }, async (request, reply) => {
    const { id, session } = deps.sessions.open();
    void reply.header('set-cookie', sessionCookie(deps.cookie, id, request.protocol === 'https', deps.ttlMs));
    return { csrf: session.csrf, expires_at: new Date(session.expiresAt).toISOString() };
  });
  app.get('/ui/api/session', { config: { auth: 'operator' } }, async (request) => {
    const session = currentSession(request, deps);
    return session
      ? { signed_in: true, csrf: session.csrf, expires_at: new Date(session.expiresAt).toISOString() }
      : { signed_in: true, csrf: null, expires_at: null };
  });
  app.post('/ui/api/logout', { config: { auth: 'operator' } }, async (request, reply) => {
    const id = readCookie(request.headers.cookie, deps.cookie);
    if (id !== undefined) deps.sessions.close(id);
    void reply.header('set-cookie', sessionCookie(deps.cookie, '', request.protocol === 'https', 0));
    return { signed_out: true };
  });
}

function currentSession(request: FastifyRequest, deps: DashboardRouteDeps) {
  const id = readCookie(request.headers.cookie, deps.cookie);
  return id === undefined ? undefined : deps.sessions.find(id);
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site sends it), Secure over TLS. */
function sessionCookie(name: string, value: string, secure: boolean, ttlMs: number): string {
  return [
    `${name}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${Math.floor(ttlMs / 1000)}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}
