import { lookup } from 'node:dns/promises';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { isIP, type Socket, connect as tcpConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { globMatcher } from '../permissions/index.js';
import { inListedCidr, listedCidrs, refusedBecause } from './address-policy.js';

/** Resolves a name to its addresses (injected in tests, so no query leaves the machine). */
export type Resolver = (host: string) => Promise<string[]>;
/** Opens a TCP connection to an address the proxy decided to allow (injected in tests). */
export type Dialer = (address: string, port: number) => Socket;

export interface EgressDecision {
  agent: string;
  host: string;
  port: number;
  allowed: boolean;
  /** The address connected to, when allowed. */
  address?: string;
  reason?: string;
  /** The `x-trace-id` the request carried, so the decision shows in that trace. */
  traceId?: string;
}

export interface EgressProxyDeps {
  /** The agent a proxy token belongs to (the agent's own mesh token). */
  identify(token: string): string | undefined;
  /** The agent's `permissions.egress`: domain globs, literal addresses, CIDRs. */
  allowlist(agent: string): readonly string[];
  logger: Logger;
  resolve?: Resolver;
  dial?: Dialer;
  onDecision?: (decision: EgressDecision) => void;
}

const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
const systemDialer: Dialer = (address, port) => tcpConnect({ host: address, port });

/** Hop-by-hop and proxy headers that must not travel on. */
const HOP_HEADERS = new Set([
  'proxy-authorization',
  'proxy-connection',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * The agents' only way out: an HTTP proxy (CONNECT for TLS, absolute URLs for plain HTTP) that
 * knows each agent by its token, lets it reach only the domains its egress list names, and refuses
 * loopback, private, link-local (metadata), CGNAT and other reserved addresses after resolving the
 * name — so a name that resolves to 127.0.0.1 is refused too — unless a CIDR in the list names
 * them. It connects to the address it checked (no second lookup to rebind), and logs each decision.
 */
export class EgressProxy {
  readonly #deps: EgressProxyDeps;
  readonly #resolve: Resolver;
  readonly #dial: Dialer;
  readonly #servers: Server[] = [];
  readonly #sockets = new Set<Duplex>();

  constructor(deps: EgressProxyDeps) {
    this.#deps = deps;
    this.#resolve = deps.resolve ?? systemResolver;
    this.#dial = deps.dial ?? systemDialer;
  }

  /** Listen on each address at `port` (0: any free port, the same for all after the first). */
  async listen(addresses: readonly string[], port: number): Promise<number> {
    let bound = port;
    for (const address of addresses) {
      const server = createServer((req, res) => void this.#plain(req, res));
      server.on(
        'connect',
        (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.#connect(req, socket, head),
      );
      server.on('connection', (socket: Socket) => {
        this.#sockets.add(socket);
        socket.once('close', () => this.#sockets.delete(socket));
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(bound, address, () => resolve());
      });
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

  /** Whether `agent` may reach `host:port`, and at which address. */
  async decide(agent: string, host: string, port: number): Promise<EgressDecision> {
    const name = host.replace(/^\[|\]$/g, '').toLowerCase();
    const list = this.#deps.allowlist(agent);
    const cidrs = listedCidrs(list);
    const refuse = (reason: string): EgressDecision => ({ agent, host: name, port, allowed: false, reason });
    const byName = globMatcher(list.filter((pattern) => !pattern.includes('/')));
    if (isIP(name) !== 0) {
      if (inListedCidr(cidrs, name)) return { agent, host: name, port, allowed: true, address: name };
      const why = refusedBecause(name);
      if (why) return refuse(`${name} is a ${why} address`);
      if (!byName(name)) return refuse(`${name} is not in agents.${agent}.permissions.egress`);
      return { agent, host: name, port, allowed: true, address: name };
    }
    if (!byName(name)) return refuse(`${name} is not in agents.${agent}.permissions.egress`);
    let addresses: string[];
    try {
      addresses = await this.#resolve(name);
    } catch (error) {
      return refuse(`${name} does not resolve (${(error as Error).message})`);
    }
    if (addresses.length === 0) return refuse(`${name} does not resolve`);
    for (const address of addresses) {
      const why = inListedCidr(cidrs, address) ? undefined : refusedBecause(address);
      if (why) return refuse(`${name} resolves to ${address}, a ${why} address`);
    }
    return { agent, host: name, port, allowed: true, address: addresses[0] as string };
  }

  /** The agent behind `Proxy-Authorization: Basic base64(agent:token)`, or undefined. */
  #authenticate(req: IncomingMessage): string | undefined {
    const header = req.headers['proxy-authorization'];
    const match = typeof header === 'string' ? /^Basic\s+(\S+)$/i.exec(header) : null;
    if (!match) return undefined;
    const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const agent = this.#deps.identify(decoded.slice(colon + 1));
    return agent !== undefined && agent === decoded.slice(0, colon) ? agent : undefined;
  }

  #record(decision: EgressDecision, method: string, req: IncomingMessage): void {
    const traceId = req.headers['x-trace-id'];
    if (typeof traceId === 'string' && /^[\w.:@-]{1,100}$/.test(traceId)) decision.traceId = traceId;
    this.#deps.logger.info({ ...decision, method }, decision.allowed ? 'egress allowed' : 'egress refused');
    this.#deps.onDecision?.(decision);
  }

  async #plain(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const agent = this.#authenticate(req);
    if (!agent) {
      res
        .writeHead(407, { 'proxy-authenticate': 'Basic realm="openlegion egress"' })
        .end('proxy authentication required\n');
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('only http:// URLs go through as plain requests');
    } catch (error) {
      res.writeHead(400).end(`egress: ${(error as Error).message} (use CONNECT for https)\n`);
      return;
    }
    const port = Number(target.port || 80);
    const decision = await this.decide(agent, target.hostname, port);
    this.#record(decision, req.method ?? 'GET', req);
    if (!decision.allowed || !decision.address) {
      res.writeHead(403, { 'x-openlegion-egress': 'refused' }).end(`egress refused: ${decision.reason}\n`);
      return;
    }
    const address = decision.address;
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([key]) => !HOP_HEADERS.has(key)));
    const upstream = httpRequest({
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers: { ...headers, host: target.host },
      createConnection: () => this.#dial(address, port),
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502).end(`egress: ${target.host} failed: ${error.message}\n`);
      else res.destroy();
    });
    req.pipe(upstream);
  }

  async #connect(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => {});
    const agent = this.#authenticate(req);
    if (!agent) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="openlegion egress"\r\n\r\n',
      );
      return;
    }
    const [host = '', portText = '443'] = splitHostPort(req.url ?? '');
    const decision = await this.decide(agent, host, Number(portText));
    this.#record(decision, 'CONNECT', req);
    if (!decision.allowed || !decision.address) {
      client.end(
        `HTTP/1.1 403 Forbidden\r\nx-openlegion-egress: refused\r\n\r\negress refused: ${decision.reason}\n`,
      );
      return;
    }
    const upstream = this.#dial(decision.address, Number(portText));
    this.#sockets.add(upstream);
    upstream.once('close', () => this.#sockets.delete(upstream));
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (error) => {
      client.end(`HTTP/1.1 502 Bad Gateway\r\n\r\negress: ${host} failed: ${error.message}\n`);
    });
    client.once('close', () => upstream.destroy());
  }
}

/** `host:port` or `[v6]:port`. */
function splitHostPort(authority: string): [string, string] {
  const v6 = /^\[([^\]]+)\]:(\d+)$/.exec(authority);
  if (v6) return [v6[1] ?? '', v6[2] ?? ''];
  const at = authority.lastIndexOf(':');
  return at < 0 ? [authority, '443'] : [authority.slice(0, at), authority.slice(at + 1)];
}
