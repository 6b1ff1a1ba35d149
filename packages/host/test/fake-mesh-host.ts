import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentSelf } from '@openlegion/protocol';

/**
 * A stand-in for the host's `/mesh/*` routes, for fleet tests: it answers `GET /mesh/self` for the
 * tokens it knows and records `POST /mesh/ready`. Not used by the host itself.
 */
export interface FakeMeshHost {
  /** The port it listens on, on every address it was given. */
  port: number;
  /** Resolves once the agent holding `token` has called `POST /mesh/ready`. */
  readyOf(token: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts a {@link FakeMeshHost} on `addresses` (one port for all) answering for `agents` by token. */
export async function startFakeMeshHost(
  addresses: readonly string[],
  agents: ReadonlyMap<string, AgentSelf>,
): Promise<FakeMeshHost> {
  const readyWaiters = new Map<string, ReadyWaiter>();
  const waiterOf = (token: string) => {
    const waiter = readyWaiters.get(token) ?? readyWaiter();
    readyWaiters.set(token, waiter);
    return waiter;
  };
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const token = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
    const self = agents.get(token);
    request.resume();
    response.setHeader('content-type', 'application/json');
    if (!self)
      return void response
        .writeHead(401)
        .end('{"error":{"code":"AUTH_INVALID","message":"unknown token","retryable":false}}');
    if (request.method === 'GET' && request.url === '/mesh/self')
      return void response.end(JSON.stringify(self));
    if (request.method === 'POST' && request.url === '/mesh/ready') {
      waiterOf(token).resolve();
      return void response.end('{"ok":true}');
    }
    response.writeHead(404).end('{"error":{"code":"NOT_FOUND","message":"no such route","retryable":false}}');
  };
  const servers: Server[] = [];
  let port = 0;
  for (const address of addresses) {
    const server = createServer(handle);
    server.listen(port, address);
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port; // a TCP listener, never a pipe
    servers.push(server);
  }
  return {
    port,
    readyOf: (token) => waiterOf(token).promise,
    close: async () => {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}

interface ReadyWaiter {
  promise: Promise<void>;
  resolve: () => void;
}

// Promise.withResolvers needs Node 22.
function readyWaiter(): ReadyWaiter {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
