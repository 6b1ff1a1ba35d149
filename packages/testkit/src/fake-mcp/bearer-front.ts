import { createServer, request } from 'node:http';
import { closeOnce, listenOnLoopback } from '../loopback-server.js';

/** One request the front saw, before it let it through or refused it. */
export interface BearerFrontRequest {
  method: string;
  path: string;
  /** The Authorization header as it came (undefined when none). */
  authorization: string | undefined;
  accepted: boolean;
}

/** A running bearer-checking reverse proxy. */
export interface BearerFront {
  /** Its base URL: the server's paths under it (e.g. `${url}/mcp`). */
  url: string;
  requests: BearerFrontRequest[];
  close(): Promise<void>;
}

/**
 * A resource server's front door on loopback: every request must carry `Authorization: Bearer T`
 * with `accepts(T)` true, else it answers 401 with `WWW-Authenticate: Bearer` as an OAuth-protected
 * MCP server does; accepted requests go on to `target` (an origin) without the header, bodies and
 * answers streamed both ways unbuffered (SSE passes as it comes). Stands in front of a real server
 * that checks nothing itself (e.g. `@modelcontextprotocol/server-everything`), so a test can see
 * which token reached the server.
 */
export async function startBearerFront(options: {
  target: string;
  accepts: (token: string) => boolean;
}): Promise<BearerFront> {
  const target = new URL(options.target);
  const requests: BearerFrontRequest[] = [];
  const lifetime = new AbortController();
  const server = createServer((req, res) => {
    const authorization = req.headers.authorization;
    const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    const accepted = token !== undefined && options.accepts(token);
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', authorization, accepted });
    if (!accepted) {
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      res.end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    const { authorization: _dropped, host: _host, ...headers } = req.headers;
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  const { baseUrl } = await listenOnLoopback(server);
  return { url: baseUrl, requests, close: closeOnce(server, lifetime) };
}
