import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeOnce, listenOnLoopback } from '../loopback-server.js';
import {
  type FakeSearchKind,
  type FakeSearchPage,
  keyRefusal,
  malformedAnswerBody,
  rateLimitBody,
  searchAnswerBody,
} from './search-wire-formats.js';

/**
 * How the fake fails every search until set back to `none`: `server-error` (503), `auth` (the
 * provider's own key refusal: Brave 422 SUBSCRIPTION_TOKEN_INVALID, Tavily 401, SearXNG 403 as for
 * JSON not enabled), `rate-limit` (429 with Retry-After: 30), `timeout` (never answers), `malformed`
 * (200, JSON of the wrong shape), `not-json` (200, an HTML page), `huge` (200, a 3 MiB body).
 */
export type FakeSearchFault =
  | 'none'
  | 'server-error'
  | 'auth'
  | 'rate-limit'
  | 'timeout'
  | 'malformed'
  | 'not-json'
  | 'huge';

/** One search request the fake received. */
export interface FakeSearchRequest {
  method: string;
  path: string;
  /** The URL's query parameters. */
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (Tavily), else undefined. */
  body: unknown;
}

export interface FakeSearchOptions {
  kind: FakeSearchKind;
  /** The key the provider accepts (Brave, Tavily); another key is refused as the provider does. */
  apiKey?: string;
  /** The pages found for a query; default three pages made from its words. */
  pages?: (query: string) => FakeSearchPage[];
  fault?: FakeSearchFault;
}

/** A running fake search provider. */
export interface FakeSearchProvider {
  kind: FakeSearchKind;
  /** The provider's base_url for mesh.yaml. */
  baseUrl: string;
  requests: FakeSearchRequest[];
  setFault(fault: FakeSearchFault): void;
  setPages(pages: (query: string) => FakeSearchPage[]): void;
  close(): Promise<void>;
}

const HUGE_BYTES = 3 * 1024 * 1024;

/** Three pages for `query`, at example.org paths made of its words. */
export function defaultPages(query: string): FakeSearchPage[] {
  const slug =
    query
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'page';
  return [1, 2, 3].map((n) => ({
    title: `${query} — result ${n}`,
    url: `https://example.org/${slug}/${n}`,
    snippet: `About ${query}: the ${n === 1 ? 'first' : n === 2 ? 'second' : 'third'} page found.`,
    published: `2026-0${n}-15T00:00:00`,
  }));
}

/**
 * A search provider on loopback speaking its real wire format: SearXNG's `GET /search?q=…&format=json`
 * (403 without format=json, as an instance without JSON enabled answers), Brave's `GET
 * /res/v1/web/search` with `X-Subscription-Token` and `count`, Tavily's `POST /search` with
 * `Authorization: Bearer` (or `api_key` in the body) and `max_results`. Faults are switched with
 * {@link FakeSearchProvider.setFault}.
 */
export async function startFakeSearchProvider(options: FakeSearchOptions): Promise<FakeSearchProvider> {
  const { kind } = options;
  let fault: FakeSearchFault = options.fault ?? 'none';
  let pages = options.pages ?? defaultPages;
  const requests: FakeSearchRequest[] = [];
  const lifetime = new AbortController();

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': typeof body === 'string' ? 'text/html; charset=utf-8' : 'application/json',
      ...headers,
    });
    res.end(text);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://loopback');
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      params: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
    });
    const route = ROUTES[kind];
    if (req.method !== route.method || url.pathname !== route.path)
      return send(res, 404, { error: 'not found' });
    const refused = () => {
      const refusal = keyRefusal(kind);
      send(res, refusal.status, refusal.body);
    };
    if (kind === 'searxng' && url.searchParams.get('format') !== 'json') return refused();
    if (
      kind !== 'searxng' &&
      options.apiKey !== undefined &&
      keyOf(kind, req.headers, body) !== options.apiKey
    )
      return refused();
    const query =
      kind === 'tavily'
        ? String((body as { query?: unknown } | undefined)?.query ?? '')
        : (url.searchParams.get('q') ?? '');
    if (query === '') return send(res, 422, { error: 'query is required' });
    switch (fault) {
      case 'server-error':
        return send(res, 503, kind === 'searxng' ? 'Service Unavailable' : { error: 'upstream overloaded' });
      case 'auth':
        return refused();
      case 'rate-limit':
        return send(res, 429, rateLimitBody(kind), { 'retry-after': '30' });
      case 'timeout':
        // Never answers; the connection closes when the client gives up or the fake stops.
        await new Promise<void>((resolve) => {
          res.on('close', resolve);
          lifetime.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        return;
      case 'malformed':
        return send(res, 200, malformedAnswerBody(kind));
      case 'not-json':
        return send(res, 200, '<!DOCTYPE html><html><body>Search results</body></html>');
      case 'huge': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        for (let sent = 0; sent < HUGE_BYTES && !res.destroyed; sent += chunk.length) res.write(chunk);
        return void res.end();
      }
    }
    const count = Number(
      kind === 'tavily'
        ? ((body as { max_results?: unknown }).max_results ?? 5)
        : (url.searchParams.get('count') ?? 20),
    );
    send(
      res,
      200,
      searchAnswerBody(kind, query, pages(query).slice(0, kind === 'searxng' ? undefined : count)),
    );
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { error: String(error) });
      else res.destroy();
    });
  });
  const { baseUrl } = await listenOnLoopback(server);
  return {
    kind,
    baseUrl,
    requests,
    setFault: (next) => {
      fault = next;
    },
    setPages: (next) => {
      pages = next;
    },
    close: closeOnce(server, lifetime),
  };
}

const ROUTES: Record<FakeSearchKind, { method: string; path: string }> = {
  searxng: { method: 'GET', path: '/search' },
  brave: { method: 'GET', path: '/res/v1/web/search' },
  tavily: { method: 'POST', path: '/search' },
};

function keyOf(kind: FakeSearchKind, headers: IncomingHttpHeaders, body: unknown): string | undefined {
  if (kind === 'brave') {
    const token = headers['x-subscription-token'];
    return typeof token === 'string' ? token : undefined;
  }
  const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
  const inBody = (body as { api_key?: unknown } | undefined)?.api_key;
  return bearer ?? (typeof inBody === 'string' ? inBody : undefined);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
