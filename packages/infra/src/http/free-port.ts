import { createServer } from 'node:net';

/** Asks the OS for a TCP port that is free on `host` right now. */
export function findFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error(`could not get a free port on ${host}`));
      });
    });
  });
}

/**
 * `count` different TCP ports free on `host` right now: a mesh's port and its egress proxy's, whose
 * default (mesh.port + 1) is often taken on a busy machine by an outgoing connection.
 */
export async function findFreePorts(host: string, count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await findFreePort(host));
  return [...ports];
}
