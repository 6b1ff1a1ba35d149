import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest } from './fake-llm/recorded-request.js';

/** Listen on `host:port` (default 127.0.0.1 and a free port); resolves with the base URL and port. */
export async function listenOnLoopback(
  server: Server,
  port = 0,
  host = '127.0.0.1',
): Promise<{ baseUrl: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const name = address.address.includes(':') ? `[${address.address}]` : address.address;
  return { baseUrl: `http://${name}:${address.port}`, port: address.port };
}

/**
 * A close that runs once however often it is called: aborts the server's `lifetime` (delays and
 * streams in progress end), stops listening and drops open connections.
 */
export function closeOnce(server: Server, lifetime: AbortController): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= new Promise<void>((resolve, reject) => {
      lifetime.abort();
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
    return closing;
  };
}

/**
 * Record one request (its body is filled in once read) and give the signal that ends its work: the
 * client leaving or the server closing.
 */
export function recordExchange(
  req: IncomingMessage,
  res: ServerResponse,
  into: { requests: RecordedRequest[]; now: () => number; lifetime: AbortController },
): { record: RecordedRequest; signal: AbortSignal } {
  const record: RecordedRequest = {
    method: req.method ?? 'GET',
    path: new URL(req.url ?? '/', 'http://loopback').pathname,
    headers: req.headers,
    body: undefined,
    at: into.now(),
  };
  into.requests.push(record);
  const exchange = new AbortController();
  res.on('close', () => exchange.abort());
  return { record, signal: AbortSignal.any([into.lifetime.signal, exchange.signal]) };
}
