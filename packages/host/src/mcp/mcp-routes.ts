import { OpenLegionError, TRACE_HEADER } from '@openlegion/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { requireAgent } from '../auth/index.js';
import type { FeatureContext } from '../features/index.js';
import { AgentSlots } from '../server/index.js';
import type { TraceLog } from '../traces/index.js';
import type { LegacySessions } from './legacy-sessions.js';
import {
  type RemoteServer,
  sendAnswer,
  sendWithCredential,
  serverFor,
  upstreamHeaders,
} from './mcp-proxy.js';
import { discard, type McpUpstream } from './mcp-upstream.js';
import { rpcSummary } from './rpc-summary.js';
import type { SessionOwners } from './session-owners.js';
import { SseEndpointRewriter } from './sse-endpoint-rewriter.js';

/**
 * Requests and streams one agent may have open to remote MCP servers at once, across them: each
 * holds a connection to a server and the host's buffers. An agent needs one stream per server and a
 * call or two in flight.
 */
export const MCP_REQUESTS_PER_AGENT = 8;
/** The largest message an agent may send a server (a tool call's arguments, a file's text). */
export const MCP_BODY_MAX_BYTES = 4 * 1024 * 1024;

export interface McpRouteDeps {
  context: Pick<FeatureContext, 'config' | 'signal' | 'clock'>;
  servers: ReadonlyMap<string, RemoteServer>;
  upstream: McpUpstream;
  sessions: LegacySessions;
  owners: SessionOwners;
  traces: TraceLog;
  logger: Logger;
}

const TRACE_ID = /^[\w.:@-]{1,100}$/;

/**
 * `/mesh/mcp/:server` (Streamable HTTP: POST, GET, DELETE) and `/mesh/mcp/:server/sse` with
 * `/mesh/mcp/:server/messages` (the legacy SSE transport), for agents granted the server. Bodies
 * pass through as bytes (at most {@link MCP_BODY_MAX_BYTES}), answers stream back as they come,
 * paced by the agent's reading.
 */
export function registerMcpRoutes(app: FastifyInstance, deps: McpRouteDeps): void {
  const slots = new AgentSlots(MCP_REQUESTS_PER_AGENT, {
    code: 'MCP_BUSY',
    field: "the host's cap of MCP requests per agent",
    what: 'requests or streams open to MCP servers',
    fix: 'wait for one to end (or close a stream) before opening another',
  });
  const config = { auth: 'agent' } as const;
  app.register(async (scope) => {
    // An MCP message goes to the server as the agent sent it.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MCP_BODY_MAX_BYTES }, (_r, body, done) =>
      done(null, body),
    );
    const options = { config, preParsing: refuseLargeBody };
    const streamable = (request: FastifyRequest, reply: FastifyReply) =>
      forwardStreamable(deps, slots, request, reply);
    scope.post('/mesh/mcp/:server', options, streamable);
    scope.get('/mesh/mcp/:server', options, streamable);
    scope.delete('/mesh/mcp/:server', options, streamable);
    scope.get('/mesh/mcp/:server/sse', options, (request, reply) =>
      openLegacyStream(deps, slots, request, reply),
    );
    scope.post('/mesh/mcp/:server/messages', options, (request, reply) =>
      forwardLegacyMessage(deps, slots, request, reply),
    );
  });
}

async function refuseLargeBody(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const length = Number(request.headers['content-length']);
  if (!Number.isFinite(length) || length <= MCP_BODY_MAX_BYTES) return;
  void reply.header('connection', 'close');
  throw new OpenLegionError(
    'MESH_VALUE_TOO_LARGE',
    `an MCP message is at most ${MCP_BODY_MAX_BYTES} bytes; this one is ${length}`,
    { details: { bytes: length, max: MCP_BODY_MAX_BYTES } },
  );
}

/** The route's server name (fastify caps a parameter's length). */
function serverParam(request: FastifyRequest): string {
  return (request.params as { server?: string }).server ?? '';
}

function bodyOf(request: FastifyRequest): Buffer | undefined {
  return Buffer.isBuffer(request.body) && request.body.length > 0 ? request.body : undefined;
}

/**
 * Take one of the agent's MCP slots until the answer ends, and give the signal that ends the
 * upstream request: the agent leaving, the host stopping, or (`deadlineMs`) the call's time. One
 * controller and one timer per request, all let go when the answer ends: this is every call's path.
 */
function hold(
  deps: McpRouteDeps,
  slots: AgentSlots,
  agent: string,
  reply: FastifyReply,
  deadlineMs: number | undefined,
): AbortSignal {
  const release = slots.acquire(agent);
  const controller = new AbortController();
  const stopping = deps.context.signal;
  const hostStopped = () => controller.abort(stopping.reason);
  const timer =
    deadlineMs === undefined
      ? undefined
      : setTimeout(
          () => controller.abort(new DOMException('the call took too long', 'TimeoutError')),
          deadlineMs,
        );
  stopping.addEventListener('abort', hostStopped, { once: true });
  const done = () => {
    release();
    clearTimeout(timer);
    stopping.removeEventListener('abort', hostStopped);
    if (!reply.raw.writableFinished) controller.abort(new Error('the agent closed the connection'));
  };
  reply.raw.once('close', done);
  if (reply.raw.destroyed) done();
  return controller.signal;
}

/** What to do when an answer breaks off after its headers went out: the agent sees it end; log it. */
function answerFailed(deps: McpRouteDeps, agent: string, server: RemoteServer): (error: Error) => void {
  return (error) =>
    deps.logger.warn({ agent, server: server.name, err: error.message }, 'mcp answer ended early');
}

/** A hop of the caller's trace (when it sent one) for each call, written when the answer ends. */
function traceCall(deps: McpRouteDeps, request: FastifyRequest, reply: FastifyReply, server: string): void {
  const trace = request.headers[TRACE_HEADER];
  const agent = request.agent ?? null;
  const started = deps.context.clock.now();
  const body = bodyOf(request);
  const rpc = body ? rpcSummary(body) : { method: request.method };
  reply.raw.once('close', () => {
    const ms = deps.context.clock.now() - started;
    deps.logger.debug({ agent, server, ...rpc, status: reply.statusCode, ms }, 'mcp call');
    if (typeof trace !== 'string' || !TRACE_ID.test(trace)) return;
    deps.traces.record({
      trace_id: trace,
      at: started,
      hop: `mcp ${server} ${rpc.method}`,
      agent,
      detail: { ...rpc, status: reply.statusCode, ms },
    });
  });
}

async function forwardStreamable(
  deps: McpRouteDeps,
  slots: AgentSlots,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const agent = requireAgent(request);
  const server = serverFor(deps.context.config, deps.servers, agent, serverParam(request), 'streamable-http');
  const method = request.method as 'GET' | 'POST' | 'DELETE';
  const timeoutMs = server.config.timeout_ms;
  // A GET is the server's stream of notifications: open as long as the agent keeps it.
  const signal = hold(deps, slots, agent, reply, method === 'GET' ? undefined : timeoutMs);
  traceCall(deps, request, reply, server.name);
  const session = request.headers['mcp-session-id'];
  if (typeof session === 'string') deps.owners.require(server.name, agent, session);
  const body = bodyOf(request);
  const answer = await sendWithCredential(server, (authorization) =>
    deps.upstream.request({
      server: server.name,
      url: server.url,
      method,
      headers: upstreamHeaders(request, authorization),
      body,
      headersTimeoutMs: timeoutMs,
      signal,
    }),
  );
  const given = answer.response.headers['mcp-session-id'];
  if (typeof given === 'string' && answer.response.statusCode < 300)
    deps.owners.claim(server.name, agent, given);
  if (method === 'DELETE' && typeof session === 'string') deps.owners.forget(server.name, agent, session);
  return sendAnswer(reply, server, answer, answer.response.body, answerFailed(deps, agent, server));
}

async function openLegacyStream(
  deps: McpRouteDeps,
  slots: AgentSlots,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const agent = requireAgent(request);
  const server = serverFor(deps.context.config, deps.servers, agent, serverParam(request), 'sse');
  const timeoutMs = server.config.timeout_ms;
  const signal = hold(deps, slots, agent, reply, undefined);
  const answer = await sendWithCredential(server, (authorization) =>
    deps.upstream.request({
      server: server.name,
      url: server.url,
      method: 'GET',
      headers: { ...upstreamHeaders(request, authorization), accept: 'text/event-stream' },
      headersTimeoutMs: timeoutMs,
      signal,
    }),
  );
  const type = String(answer.response.headers['content-type'] ?? '');
  if (answer.response.statusCode !== 200 || !type.startsWith('text/event-stream')) {
    discard(answer.response.body);
    throw new OpenLegionError(
      'MCP_UPSTREAM_FAILED',
      `MCP server "${server.name}" answered its SSE URL with HTTP ${answer.response.statusCode} ${type.slice(0, 60) || '(no content type)'}, not an event stream: check mcp.servers.${server.name}.url and .transport in mesh.yaml`,
      { details: { server: server.name, status: answer.response.statusCode } },
    );
  }
  let session: { id: string; close(): void } | undefined;
  const rewriter = new SseEndpointRewriter(server.name, (data) => {
    const endpoint = sameOriginEndpoint(server, data);
    session = deps.sessions.open(agent, server.name, endpoint);
    return `/mesh/mcp/${server.name}/messages?session=${session.id}`;
  });
  let closing = false;
  // The server's stream breaking off ends the agent's; the host dropping it on purpose does not.
  answer.response.body.on('error', (error) => {
    if (!closing) rewriter.destroy(error);
  });
  const ended = (error: Error) => {
    closing = true;
    discard(answer.response.body);
    deps.logger.warn({ agent, server: server.name, err: error.message }, 'mcp sse stream ended');
  };
  rewriter.on('error', ended);
  rewriter.on('violation', ended);
  answer.response.body.pipe(rewriter);
  reply.raw.once('close', () => {
    closing = true;
    session?.close();
    discard(answer.response.body);
    rewriter.destroy();
  });
  let waited: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      rewriter.endpoint,
      new Promise((_resolve, reject) => {
        waited = setTimeout(
          () =>
            reject(
              new OpenLegionError(
                'MCP_UPSTREAM_TIMEOUT',
                `MCP server "${server.name}" sent no endpoint event within ${timeoutMs} ms (mcp.servers.${server.name}.timeout_ms)`,
                { details: { server: server.name } },
              ),
            ),
          timeoutMs,
        );
      }),
    ]);
  } catch (error) {
    closing = true;
    rewriter.destroy();
    discard(answer.response.body);
    throw error;
  } finally {
    clearTimeout(waited);
  }
  return sendAnswer(reply, server, answer, rewriter, answerFailed(deps, agent, server));
}

/**
 * The server's endpoint as a URL: relative ones resolve against the configured URL, and only the
 * same origin (scheme, host and port the operator wrote) is followed; anything else is a server
 * trying to send the agent's messages, with the host's credential, elsewhere.
 */
function sameOriginEndpoint(server: RemoteServer, data: string): URL {
  let endpoint: URL | undefined;
  try {
    endpoint = new URL(data.trim(), server.url);
  } catch {
    // Reported below with the text as sent.
  }
  if (endpoint?.origin === server.url.origin) return endpoint;
  throw new OpenLegionError(
    'MCP_UPSTREAM_FAILED',
    `MCP server "${server.name}" named its message endpoint ${JSON.stringify(data.slice(0, 80))}, which is not on ${server.url.origin} (its url in mesh.yaml); the host sends messages only there`,
    { details: { server: server.name } },
  );
}

async function forwardLegacyMessage(
  deps: McpRouteDeps,
  slots: AgentSlots,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const agent = requireAgent(request);
  const server = serverFor(deps.context.config, deps.servers, agent, serverParam(request), 'sse');
  const session = (request.query as { session?: unknown }).session;
  const endpoint = deps.sessions.endpoint(
    agent,
    server.name,
    typeof session === 'string' ? session : undefined,
  );
  const timeoutMs = server.config.timeout_ms;
  const signal = hold(deps, slots, agent, reply, timeoutMs);
  traceCall(deps, request, reply, server.name);
  const body = bodyOf(request);
  const answer = await sendWithCredential(server, (authorization) =>
    deps.upstream.request({
      server: server.name,
      url: endpoint,
      method: 'POST',
      headers: upstreamHeaders(request, authorization),
      body,
      headersTimeoutMs: timeoutMs,
      signal,
    }),
  );
  return sendAnswer(reply, server, answer, answer.response.body, answerFailed(deps, agent, server));
}
