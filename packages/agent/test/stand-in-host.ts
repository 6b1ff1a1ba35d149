import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentSelf } from '@openlegion/protocol';
import { errorBody } from '@openlegion/protocol';

/** One `/mesh/*` call the stand-in host received. */
export interface HostCall {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/** A loopback stand-in for the OpenLegion host, as far as an agent sees it. */
export interface StandInHost {
  url: string;
  calls: HostCall[];
  /** Resolves with the body of the first `POST /mesh/ready`. */
  ready: Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Serves `/mesh/self` and `/mesh/ready` for one agent token and relays `/v1/*` unchanged to an
 * OpenAI-compatible server (the testkit fake LLM), so the fake records what the agent sent.
 */
export async function startStandInHost(options: {
  self: AgentSelf;
  token: string;
  llmUrl: string;
}): Promise<StandInHost> {
  const calls: HostCall[] = [];
  let markReady: (body: unknown) => void = () => {};
  const ready = new Promise<unknown>((resolve) => {
    markReady = resolve;
  });
  const llmOrigin = new URL(options.llmUrl).origin;

  const server = createServer((req, res) => {
    if (req.url?.startsWith('/v1/')) {
      relay(req, res, llmOrigin);
      return;
    }
    void readBody(req).then((body) => {
      const path = req.url ?? '/';
      calls.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization, body });
      if (req.headers.authorization !== `Bearer ${options.token}`) {
        sendJson(res, 401, errorBody('AUTH_INVALID', 'unknown agent token'));
      } else if (req.method === 'GET' && path === '/mesh/self') {
        sendJson(res, 200, options.self);
      } else if (req.method === 'POST' && path === '/mesh/ready') {
        markReady(body);
        sendJson(res, 200, { ok: true });
      } else {
        sendJson(res, 404, errorBody('NOT_FOUND', `no route ${req.method} ${path}`));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo; // TCP listener
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    ready,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function relay(req: IncomingMessage, res: ServerResponse, origin: string): void {
  const upstream = httpRequest(
    `${origin}${req.url}`,
    { method: req.method, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      // An upstream cut must reach the agent as a cut, as it does through the real host.
      answer.on('aborted', () => res.destroy());
      answer.on('error', () => res.destroy());
      answer.pipe(res);
    },
  );
  upstream.on('error', () => res.destroy());
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text === '' ? undefined : JSON.parse(text);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
