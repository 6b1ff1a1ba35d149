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
