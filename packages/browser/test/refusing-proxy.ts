import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for the host's egress proxy that refuses everything, as the real one refuses a host
 * off the allowlist: 403 with `x-openlegion-egress: refused`. It never dials anywhere, so a
 * browser pointed at it sends no packet off the machine (Chromium sends loopback direct).
 */
export async function startRefusingProxy(): Promise<{
  server: string;
  seen: string[];
  close(): Promise<void>;
}> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(403, { 'x-openlegion-egress': 'refused', 'content-type': 'text/plain' });
    res.end('egress refused: host not in allowlist\n');
  });
  server.on('connect', (req, socket) => {
    // Chromium may reset the tunnel (a crash, a closed tab): a socket error must not end the test run.
    socket.on('error', () => {});
    seen.push(`CONNECT ${req.url ?? ''}`);
    // As the host's proxy answers: the reason in a header too, since clients drop a CONNECT's body.
    const body = 'egress refused: host not in allowlist\n';
    socket.end(
      `HTTP/1.1 403 Forbidden\r\nx-openlegion-egress: refused\r\nx-openlegion-egress-reason: ${body.trim()}\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server: `http://127.0.0.1:${port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Chromium resolves no name but loopback: nothing can leave the machine even by mistake. */
export const LOOPBACK_ONLY_ARGS = ['--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'];
