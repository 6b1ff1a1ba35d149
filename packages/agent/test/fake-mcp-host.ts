import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { findFreePort } from '@openlegion/infra/http';
import { serverEntry } from './mcp-servers.js';

const REMOTE_EVERYTHING = new URL('./fixtures/mcp/remote-everything.mjs', import.meta.url).pathname;

/** A remote server-everything behind a bearer gate, on loopback. */
export interface RemoteServer {
  port: number;
  close(): void;
}

export async function startRemoteEverything(
  token: string,
  mode: 'streamableHttp' | 'sse',
): Promise<RemoteServer> {
  const port = await findFreePort('127.0.0.1');
  const child: ChildProcess = spawn(
    process.execPath,
    [REMOTE_EVERYTHING, serverEntry('server-everything'), String(port), token, mode],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`remote server-everything exited with ${code}`)));
  });
  return { port, close: () => child.kill() };
}

/**
 * A stand-in for the host's `/mesh/mcp/NAME` route (built in the host, not here), as far as the
 * agent's client sees it: the agent's bearer token checked, the server's own token added, requests
 * and streamed answers passed through; for SSE the `endpoint` event rewritten to stay under the
 * route. `servers` maps a name to its upstream port and transport.
 */
export async function startFakeMcpHost(options: {
  agentToken: string;
  serverToken: string;
  servers: Record<string, { port: number; transport: 'streamable-http' | 'sse' }>;
}): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const match = /^\/mesh\/mcp\/([a-z0-9-]+)(\/[^?]*)?(\?.*)?$/.exec(request.url ?? '');
    const upstream = match?.[1] ? options.servers[match[1]] : undefined;
    if (request.headers.authorization !== `Bearer ${options.agentToken}`) {
      response.writeHead(401).end();
      return;
    }
    if (!match || !upstream) {
      response.writeHead(404).end();
      return;
    }
    const rest = match[2] ?? '';
    const upstreamPath =
      upstream.transport === 'sse'
        ? `${rest === '/sse' ? '/sse' : '/message'}${match[3] ?? ''}`
        : `/mcp${match[3] ?? ''}`;
    const forward = http.request(
      {
        host: '127.0.0.1',
        port: upstream.port,
        method: request.method,
        path: upstreamPath,
        headers: { ...request.headers, authorization: `Bearer ${options.serverToken}` },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        if (upstream.transport !== 'sse' || rest !== '/sse') {
          answer.pipe(response);
          return;
        }
        answer.setEncoding('utf8');
        answer.on('data', (text: string) =>
          response.write(text.replace(/^data: \/message/m, `data: /mesh/mcp/${match[1]}/message`)),
        );
        answer.on('end', () => response.end());
      },
    );
    forward.on('error', () => response.destroy());
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
