import { lookup } from 'node:dns/promises';
import {
  type ClientRequest,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { type Socket, connect as tcpConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { EGRESS_REASON_HEADER, EGRESS_REFUSED_HEADER, TRACE_HEADER } from '@openlegion/protocol';
import type { Logger } from 'pino';
import { LogBudget } from '../server/index.js';
import { type EgressDecision, EgressPolicy, type Resolver } from './egress-policy.js';
import { badPortProblem, type EgressTarget, parseConnectAuthority, parsePort } from './egress-target.js';
import { answerRequest, answerSocket, failRequest } from './proxy-answers.js';

/** Opens a TCP connection to an address the proxy decided to allow (injected in tests). */
export type Dialer = (address: string, port: number) => Socket;

export interface EgressProxyDeps {
  /** The agent a proxy token belongs to (its proxy token, never its mesh token). */
  identify(token: string): string | undefined;
  /** The agent's `permissions.egress`: domain globs, literal addresses, CIDRs. */
  allowlist(agent: string): readonly string[];
  /** The agent's `permissions.egress_ports`. */
  ports(agent: string): readonly number[];
  logger: Logger;
  resolve?: Resolver;
  dial?: Dialer;
  onDecision?: (decision: EgressDecision) => void;
  /** For the log budget; default Date.now. */
  now?: () => number;
  /** Counts one request of the agent: resolves when it may go on (undefined), else with why not (answered 429). */
  rateLimited?: (agent: string) => Promise<string | undefined>;
}

const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
const systemDialer: Dialer = (address, port) => tcpConnect({ host: address, port });

/** Hop-by-hop and proxy headers that must not travel on. */
const HOP_HEADERS = new Set([
  // The mesh's own: it tells the proxy the turn, not the site.
  TRACE_HEADER,
  'proxy-authorization',
  'proxy-connection',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** A browser loading a page makes dozens of decisions at once; the burst (ten seconds' worth) holds those. */
const EGRESS_LOG_LINES_PER_S = 10;

const PROXY_AUTHENTICATE = { 'proxy-authenticate': 'Basic realm="openlegion egress"' };

/**
 * The agents' only way out: an HTTP proxy (CONNECT for TLS, absolute URLs for plain HTTP) that
 * knows each agent by its proxy token and applies {@link EgressPolicy}: only the domains and ports
 * the agent's lists name, never loopback, private, link-local (metadata), CGNAT or other reserved
 * addresses in any spelling, after resolving the name, unless a CIDR in the list names them. It
 * connects to the address it checked (no second lookup to rebind) and logs each decision. Whatever
 * a request holds, it gets an answer (400 malformed, 403 refused, 502 upstream failed) and never
 * throws out of a handler.
 */
export class EgressProxy {
  readonly #deps: EgressProxyDeps;
  readonly #policy: EgressPolicy;
  readonly #dial: Dialer;
  readonly #servers: Server[] = [];
  readonly #sockets = new Set<Duplex>();
  /** Decisions are logged at most {@link EGRESS_LOG_LINES_PER_S} a second per agent. */
  readonly #logBudget: LogBudget;

  constructor(deps: EgressProxyDeps) {
    this.#deps = deps;
    this.#policy = new EgressPolicy({
      allowlist: deps.allowlist,
      ports: deps.ports,
      resolve: deps.resolve ?? systemResolver,
    });
    this.#dial = deps.dial ?? systemDialer;
    this.#logBudget = new LogBudget(EGRESS_LOG_LINES_PER_S, deps.now ?? Date.now);
  }

  /** Listen on each address at `port` (0: any free port, the same for all after the first). */
  async listen(addresses: readonly string[], port: number): Promise<number> {
    let bound = port;
    for (const address of addresses) {
      const server = createServer((req, res) => {
        this.#plain(req, res).catch((error: unknown) => this.#failed(error, () => failRequest(res, error)));
      });
      server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        socket.on('error', () => {});
        this.#connect(req, socket, head).catch((error: unknown) =>
          this.#failed(error, () =>
            answerSocket(socket, 500, `egress: internal error (${errorText(error)})`),
          ),
        );
      });
      server.on('connection', (socket: Socket) => {
        this.#sockets.add(socket);
        socket.once('close', () => this.#sockets.delete(socket));
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(bound, address, () => resolve());
      });
      // Once listening, a server error is logged, never thrown at the process.
      server.on('error', (error) => this.#deps.logger.error({ err: error }, 'egress proxy server error'));
      const actual = server.address();
      if (typeof actual === 'object' && actual) bound = actual.port;
      this.#servers.push(server);
    }
    return bound;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await Promise.all(
      this.#servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
    this.#servers.length = 0;
  }

  /** Whether `agent` may reach `host:port`, and at which address (see {@link EgressPolicy.decide}). */
  decide(agent: string, host: string, port: number): Promise<EgressDecision> {
    return this.#policy.decide(agent, host, port);
  }

  /** A handler failed where it should not: log it, answer if still possible. */
  #failed(error: unknown, answer: () => void): void {
    this.#deps.logger.error({ err: error }, 'egress proxy request failed');
    try {
      answer();
    } catch {
      // The client is gone; nothing is left to answer.
    }
  }

  /** The agent behind `Proxy-Authorization: Basic base64(agent:token)`, or undefined. */
  #authenticate(req: IncomingMessage): string | undefined {
    const header = req.headers['proxy-authorization'];
    if (typeof header !== 'string' || header.length > 1024) return undefined;
    const match = /^Basic\s+([A-Za-z0-9+/=_-]+)$/i.exec(header);
    if (!match) return undefined;
    const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 1) return undefined;
    const agent = this.#deps.identify(decoded.slice(colon + 1));
    return agent !== undefined && agent === decoded.slice(0, colon) ? agent : undefined;
  }

  #record(decision: EgressDecision, method: string, req: IncomingMessage): void {
    const traceId = req.headers[TRACE_HEADER];
    if (typeof traceId === 'string' && /^[\w.:@-]{1,100}$/.test(traceId)) decision.traceId = traceId;
    const line = this.#logBudget.admit(decision.agent);
    if (line.write)
      this.#deps.logger.info(
        { ...decision, method, ...(line.skipped > 0 ? { not_logged_before: line.skipped } : {}) },
        decision.allowed ? 'egress allowed' : 'egress refused',
      );
    this.#deps.onDecision?.(decision);
  }

  /** Decide `target` for the request's agent; undefined with the refusal already answered. */
  async #allowed(
    agent: string,
    target: EgressTarget,
    method: string,
    req: IncomingMessage,
    refuse: (status: 400 | 403, text: string) => void,
  ): Promise<{ address: string; port: number } | undefined> {
    if ('problem' in target) {
      refuse(400, `egress: ${target.problem}\n`);
      return undefined;
    }
    const decision = await this.decide(agent, target.host, target.port);
    this.#record(decision, method, req);
    if (decision.allowed && decision.address) return { address: decision.address, port: target.port };
    if (decision.invalid) refuse(400, `egress: ${decision.reason}\n`);
    else refuse(403, `egress refused: ${decision.reason}\n`);
    return undefined;
  }

  async #plain(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.on('error', () => {});
    const agent = this.#authenticate(req);
    if (!agent) {
      answerRequest(res, 407, 'proxy authentication required', PROXY_AUTHENTICATE);
      return;
    }
    const limited = await this.#deps.rateLimited?.(agent);
    if (limited) {
      answerRequest(res, 429, `egress: ${limited}`, { connection: 'close' });
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '');
      if (url.protocol !== 'http:') throw new Error('only http:// URLs go through as plain requests');
    } catch (error) {
      answerRequest(res, 400, `egress: ${errorText(error)} (use CONNECT for https)`);
      return;
    }
    const portText = url.port || '80';
    const port = parsePort(portText);
    const target: EgressTarget =
      port === undefined ? { problem: badPortProblem(portText) } : { host: url.hostname, port };
    const refuse = (status: number, text: string) =>
      answerRequest(res, status, text, status === 403 ? { [EGRESS_REFUSED_HEADER]: 'refused' } : {});
    const allowed = await this.#allowed(agent, target, req.method ?? 'GET', req, refuse);
    if (!allowed) return;
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([key]) => !HOP_HEADERS.has(key)));
    let upstream: ClientRequest;
    try {
      // The dial happens inside: a synchronous throw from it is an upstream failure, 502.
      upstream = httpRequest({
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, host: url.host },
        createConnection: () => this.#dial(allowed.address, allowed.port),
      });
    } catch (error) {
      answerRequest(res, 502, `egress: ${url.host} failed: ${errorText(error)}`);
      return;
    }
    upstream.on('response', (answer) => {
      try {
        // The proxy's own headers are the proxy's: a site may not forge a refusal with them.
        const {
          [EGRESS_REFUSED_HEADER]: _refused,
          [EGRESS_REASON_HEADER]: _reason,
          ...passed
        } = answer.headers;
        res.writeHead(answer.statusCode ?? 502, passed);
        answer.on('error', () => res.destroy());
        answer.pipe(res);
      } catch (error) {
        this.#failed(error, () => res.destroy());
      }
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) answerRequest(res, 502, `egress: ${url.host} failed: ${error.message}`);
      else res.destroy();
    });
    res.once('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  async #connect(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    const agent = this.#authenticate(req);
    if (!agent) {
      answerSocket(client, 407, 'proxy authentication required', PROXY_AUTHENTICATE);
      return;
    }
    const limited = await this.#deps.rateLimited?.(agent);
    if (limited) {
      answerSocket(client, 429, `egress: ${limited}`);
      return;
    }
    const refuse = (status: number, text: string) =>
      answerSocket(client, status, text, status === 403 ? { [EGRESS_REFUSED_HEADER]: 'refused' } : {});
    const target = parseConnectAuthority(req.url ?? '');
    const allowed = await this.#allowed(agent, target, 'CONNECT', req, refuse);
    if (!allowed) return;
    if (client.destroyed) return;
    let upstream: Socket;
    try {
      upstream = this.#dial(allowed.address, allowed.port);
    } catch (error) {
      answerSocket(client, 502, `egress: ${allowed.address} failed: ${errorText(error)}`);
      return;
    }
    this.#sockets.add(upstream);
    upstream.once('close', () => this.#sockets.delete(upstream));
    let tunnelled = false;
    upstream.once('connect', () => {
      tunnelled = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (error) => {
      // Once the tunnel carries the agent's bytes, an answer would corrupt them: just close it.
      if (tunnelled) client.destroy();
      else answerSocket(client, 502, `egress: ${allowed.address} failed: ${error.message}`);
    });
    client.once('close', () => upstream.destroy());
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
