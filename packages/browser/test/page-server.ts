import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A page: HTML, or a handler for anything else (downloads, pages that never answer). */
export type Route = string | ((req: IncomingMessage, res: ServerResponse) => void);

/** A loopback HTTP server for test pages; `url(path)` gives its address. */
export interface PageServer {
  url(path: string): string;
  /** Requests seen, by path. */
  hits: string[];
  close(): Promise<void>;
}

/** Serve `routes` on 127.0.0.1 (HTML with utf-8). Unknown paths are 404. */
export async function startPageServer(routes: Record<string, Route>): Promise<PageServer> {
  const hits: string[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    hits.push(path);
    const route = routes[path];
    if (route === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    } else if (typeof route === 'string') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(route);
    } else {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      route(req, res);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    hits,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A route that accepts the request and never answers (a page that never loads). */
export const neverAnswer: Route = () => undefined;
