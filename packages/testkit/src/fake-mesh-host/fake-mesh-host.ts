import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentInstructions, errorBody } from '@openlegion/protocol';

/** What `GET /mesh/self` answers for one agent (protocol's AgentSelf, kept loose for tests). */
export type FakeAgentSelf = Record<string, unknown> & { agent: string };

/** One `/mesh/*` call the fake host received. */
export interface FakeMeshHostCall {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export interface FakeMeshHostOptions {
  /** agent token → what `GET /mesh/self` answers for it. */
  agents: ReadonlyMap<string, FakeAgentSelf>;
  /** Where to listen, one port for all; loopback when omitted. */
  addresses?: readonly string[];
  /** An OpenAI-compatible server (testkit's fake LLM) that `/v1/*` is relayed to, unchanged. */
  llmUrl?: string;
  /** agent token → what `GET /mesh/instructions` answers; none held (version 0) when absent. */
  instructions?: ReadonlyMap<string, AgentInstructions>;
}

/** A message an agent put into its own lane (`POST /mesh/self/inbox`), once per key. */
export interface FakeInboxMessage {
  agent: string;
  key: string;
  conversation_id: string;
  message: string;
}

/** A loopback stand-in for the OpenLegion host, as far as an agent sees it. */
export interface FakeMeshHost {
  /** `http://127.0.0.1:<port>` (the first address). */
  url: string;
  port: number;
  calls: FakeMeshHostCall[];
  /** Resolves with the body of `POST /mesh/ready` from the agent holding `token`. */
  readyOf(token: string): Promise<unknown>;
  /** Change what `GET /mesh/instructions` answers the agent holding `token` (as an operator's write). */
  setInstructions(token: string, instructions: AgentInstructions): void;
  /** Self-inbox messages taken, a key seen before dropped as the real host does. */
  inbox: FakeInboxMessage[];
  /** Answer the next `count` self-inbox posts 503 (the host going away mid-delivery). */
  failInbox(count: number): void;
  close(): Promise<void>;
}

/**
 * Serves `/mesh/self`, `/mesh/ready`, `/mesh/self/inbox` and `/mesh/instructions` (with its ETag) for the tokens it
 * knows, and relays `/v1/*` to a fake LLM so the fake records what the agent sent. For agent and
 * fleet tests; the real host is not used.
 */
export async function startFakeMeshHost(options: FakeMeshHostOptions): Promise<FakeMeshHost> {
  const calls: FakeMeshHostCall[] = [];
  const readyWaiters = new Map<string, Waiter>();
  const waiterOf = (token: string) => {
    const waiter = readyWaiters.get(token) ?? newWaiter();
    readyWaiters.set(token, waiter);
    return waiter;
  };
  const llmOrigin = options.llmUrl ? new URL(options.llmUrl).origin : undefined;
  const instructions = new Map(options.instructions);
  const instructionsOf = (token: string): AgentInstructions =>
    instructions.get(token) ?? { version: 0, files: { 'AGENTS.md': null, 'SOUL.md': null } };
  const inbox: FakeInboxMessage[] = [];
  let inboxFailures = 0;
  const takeInbox = (agent: string, res: ServerResponse, body: unknown) => {
    if (inboxFailures > 0) {
      inboxFailures -= 1;
      return sendJson(res, 503, errorBody('MESH_NOT_RUNNING', 'the host is stopping'));
    }
    const { key, conversation_id = 'default', message } = body as Partial<FakeInboxMessage>;
    if (typeof key !== 'string' || typeof message !== 'string')
      return sendJson(res, 400, errorBody('REQUEST_INVALID', 'key and message are required'));
    const seen = inbox.findIndex((entry) => entry.agent === agent && entry.key === key);
    if (seen === -1) inbox.push({ agent, key, conversation_id, message });
    const itemId = seen === -1 ? inbox.length : seen + 1;
    sendJson(res, seen === -1 ? 202 : 200, {
      item_id: itemId,
      trace_id: `inbox-${itemId}`,
      outcome: seen === -1 ? 'queued' : 'existing',
    });
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (llmOrigin && req.url?.startsWith('/v1/')) return relay(req, res, llmOrigin);
    void readBody(req).then((body) => {
      const path = req.url ?? '/';
      calls.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization, body });
      const token = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
      const self = options.agents.get(token);
      if (!self) sendJson(res, 401, errorBody('AUTH_INVALID', 'unknown agent token'));
      else if (req.method === 'GET' && path === '/mesh/self') sendJson(res, 200, self);
      else if (req.method === 'GET' && path === '/mesh/instructions') {
        const current = instructionsOf(token);
        const etag = `"${current.version}"`;
        if (req.headers['if-none-match'] === etag) res.writeHead(304, { etag }).end();
        else sendJson(res, 200, current, { etag });
      } else if (req.method === 'POST' && path === '/mesh/ready') {
        waiterOf(token).resolve(body);
        sendJson(res, 200, { ok: true });
      } else if (req.method === 'POST' && path === '/mesh/self/inbox') takeInbox(self.agent, res, body);
      else sendJson(res, 404, errorBody('NOT_FOUND', `no route ${req.method} ${path}`));
    });
  };
  const servers: Server[] = [];
  let port = 0;
  for (const address of options.addresses ?? ['127.0.0.1']) {
    const server = createServer(handle);
    server.listen(port, address);
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port; // a TCP listener, never a pipe
    servers.push(server);
  }
  return {
    url: `http://${options.addresses?.[0] ?? '127.0.0.1'}:${port}`,
    port,
    calls,
    readyOf: (token) => waiterOf(token).promise,
    setInstructions: (token, next) => {
      instructions.set(token, next);
    },
    inbox,
    failInbox: (count) => {
      inboxFailures = count;
    },
    close: async () => {
      await Promise.all(
        servers.map((server) => {
          server.closeAllConnections();
          return new Promise((resolve) => server.close(resolve));
        }),
      );
    },
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

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

interface Waiter {
  promise: Promise<unknown>;
  resolve: (value: unknown) => void;
}

// Promise.withResolvers needs Node 22.
function newWaiter(): Waiter {
  let resolve: (value: unknown) => void = () => {};
  const promise = new Promise<unknown>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
