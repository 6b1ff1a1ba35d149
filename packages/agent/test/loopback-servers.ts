import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import path from 'node:path';

/** A listening server on 127.0.0.1, its base URL and a close. */
export interface Loopback {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function listen(server: Server): Promise<Loopback> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Serves `<dir>/<site>/source.html` at `/<site>/` as text/html. */
export function servePages(dir: string): Promise<Loopback> {
  return listen(
    createServer((request, response) => {
      const site = decodeURIComponent((request.url ?? '/').split('/')[1] ?? '');
      try {
        const html = readFileSync(path.join(dir, path.basename(site), 'source.html'));
        response.writeHead(200, { 'content-type': 'text/html' }).end(html);
      } catch {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
      }
    }),
  );
}

/** What a loopback proxy saw: one line per request, e.g. `CONNECT article.test:80`. */
export interface ProxyLog {
  requests: { line: string; authorization: string | undefined }[];
}

/**
 * A small HTTP proxy on 127.0.0.1 (CONNECT tunnels and absolute-URI requests) that sends every
 * request to `upstreamPort` on 127.0.0.1 whatever host it names, so names that resolve nowhere work
 * only through it. Hosts in `refuse` get a 403, as the egress proxy answers a forbidden host.
 */
export async function startProxy(upstreamPort: number, refuse: string[] = []): Promise<Loopback & ProxyLog> {
  const requests: ProxyLog['requests'] = [];
  const note = (request: IncomingMessage) =>
    requests.push({
      line: `${request.method} ${request.url}`,
      authorization: request.headers['proxy-authorization'],
    });
  const server = createServer((request, response) => {
    note(request);
    const target = new URL(request.url ?? '/');
    if (refuse.includes(target.hostname)) return void response.writeHead(403).end('forbidden by proxy');
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: upstreamPort,
        method: request.method,
        path: `${target.pathname}${target.search}`,
        headers: request.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    request.pipe(upstream);
  });
  server.on('connect', (request, socket, head) => {
    // A client may reset a refused tunnel before reading the answer: never an uncaught error.
    socket.on('error', () => {});
    note(request);
    const host = (request.url ?? '').split(':')[0] ?? '';
    if (refuse.includes(host)) return void socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
    const upstream = connect(upstreamPort, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  const loopback = await listen(server);
  return { ...loopback, requests };
}
