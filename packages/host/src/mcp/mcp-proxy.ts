import type { Readable } from 'node:stream';
import {
  type DeepReadonly,
  isRemoteMcpServer,
  type McpRemoteServerConfig,
  type MeshConfig,
  OpenLegionError,
} from '@openlegion/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { SecretScrubber } from '../credentials/index.js';
import type { McpCredential } from './mcp-credential.js';
import { discard } from './mcp-upstream.js';
import { LineScrubber, pumpAnswer } from './scrub-stream.js';

/** A server's answer, status and headers read, with the credential it was sent with. */
export interface McpAnswer {
  response: Dispatcher.ResponseData;
  authorization: string | undefined;
}

/** A remote server of mesh.yaml, ready to forward to. */
export interface RemoteServer {
  name: string;
  config: DeepReadonly<McpRemoteServerConfig>;
  url: URL;
  credential: McpCredential;
}

/** The agent's request headers a remote server gets (MCP's own, and content negotiation). */
const FORWARDED_REQUEST_HEADERS = [
  'accept',
  'content-type',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
] as const;
/**
 * The server's answer headers the agent gets. Not `www-authenticate`: the server's auth is the
 * host's business, and the agent's SDK would start an OAuth flow against the host on it.
 */
const PASSED_RESPONSE_HEADERS = ['content-type', 'mcp-session-id', 'mcp-protocol-version'] as const;
/** The most of a failed answer's body quoted in the agent's error. */
const QUOTED_FAILURE_CHARS = 300;

/** The remote servers of `config` by name (stdio ones are the agent's own and not here). */
export function remoteServersOf(
  config: MeshConfig,
  make: (name: string, server: DeepReadonly<McpRemoteServerConfig>) => McpCredential,
): Map<string, RemoteServer> {
  const servers = new Map<string, RemoteServer>();
  for (const [name, server] of Object.entries(config.mcp.servers))
    if (isRemoteMcpServer(server))
      servers.set(name, { name, config: server, url: new URL(server.url), credential: make(name, server) });
  return servers;
}

/**
 * The server `name` for `agent` on a route of `transport`: 404 MCP_SERVER_UNKNOWN (listing the
 * remote servers the agent is granted), 403 MESH_FORBIDDEN naming the mesh.yaml line that grants
 * it, or 400 MCP_TRANSPORT_MISMATCH naming the path to use.
 */
export function serverFor(
  config: MeshConfig,
  servers: ReadonlyMap<string, RemoteServer>,
  agent: string,
  name: string,
  transport: McpRemoteServerConfig['transport'],
): RemoteServer {
  const granted = config.agents[agent]?.permissions.mcp ?? [];
  const server = servers.get(name);
  if (!server) {
    const remote = granted.filter((granted) => servers.has(granted));
    throw new OpenLegionError(
      'MCP_SERVER_UNKNOWN',
      `no remote MCP server "${name.slice(0, 40)}" in mesh.yaml's mcp.servers (agent "${agent}" may use: ${remote.join(', ') || 'none'})`,
      { details: { server: name.slice(0, 40) } },
    );
  }
  if (!granted.includes(name))
    throw new OpenLegionError(
      'MESH_FORBIDDEN',
      `agent "${agent}" may not use MCP server "${name}": add "${name}" to agents.${agent}.permissions.mcp in mesh.yaml to allow it`,
      { details: { agent, permission: 'mcp', target: name } },
    );
  if (server.config.transport !== transport) {
    const path = server.config.transport === 'sse' ? `/mesh/mcp/${name}/sse` : `/mesh/mcp/${name}`;
    throw new OpenLegionError(
      'MCP_TRANSPORT_MISMATCH',
      `MCP server "${name}" speaks ${server.config.transport} (mcp.servers.${name}.transport in mesh.yaml): connect to ${path}`,
      { details: { server: name, transport: server.config.transport } },
    );
  }
  return server;
}

/** The agent's MCP headers for the server, and the server's credential in place of the agent's. */
export function upstreamHeaders(
  request: FastifyRequest,
  authorization: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = { 'accept-encoding': 'identity' };
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  // The agent's own Authorization (its mesh token) is never among them: only the server's goes.
  if (authorization !== undefined) headers.authorization = authorization;
  return headers;
}

/**
 * Send `forward` (a request to `server` with its credential set), once more with a fresh OAuth
 * token when the first answers 401; then any answer the agent's MCP client should not read as the
 * server's own becomes the host's error: a redirect (not followed), 401/403 (the host's credential
 * refused) and 5xx, each naming the server.
 */
export async function sendWithCredential(
  server: RemoteServer,
  forward: (authorization: string | undefined) => Promise<Dispatcher.ResponseData>,
): Promise<McpAnswer> {
  const { credential } = server;
  let authorization = await credential.authorization();
  let answer = await forward(authorization);
  if (answer.statusCode === 401 && credential.refreshable) {
    discard(answer.body);
    credential.invalidate();
    authorization = await credential.authorization();
    answer = await forward(authorization);
  }
  const status = answer.statusCode;
  if (status < 300 || (status >= 400 && status < 500 && status !== 401 && status !== 403))
    return { response: answer, authorization };
  const quoted = await quote(answer.body, authorization);
  const details = { server: server.name, status };
  if (status < 400)
    throw new OpenLegionError(
      'MCP_UPSTREAM_FAILED',
      `MCP server "${server.name}" answered HTTP ${status}, a redirect, which the host does not follow: set mcp.servers.${server.name}.url in mesh.yaml to where it points`,
      { details },
    );
  if (status === 401 || status === 403) {
    const fix = server.config.auth
      ? `check mcp.servers.${server.name}.auth in mesh.yaml and the vault entry ${credential.secretNames.join(', ')} (openlegion vault set NAME)`
      : `it wants credentials: set mcp.servers.${server.name}.auth in mesh.yaml (bearer or oauth, from the vault)`;
    throw new OpenLegionError(
      'MCP_UPSTREAM_AUTH',
      `MCP server "${server.name}" refused the host's credential (HTTP ${status}${quoted}): ${fix}`,
      { details },
    );
  }
  throw new OpenLegionError(
    'MCP_UPSTREAM_FAILED',
    `MCP server "${server.name}" answered HTTP ${status}${quoted}`,
    {
      details,
    },
  );
}

/**
 * The server's answer to the agent: status, MCP headers, and `body` (the answer's, or what a
 * rewriter made of it) streamed as it comes, the server's credential scrubbed out on the way.
 */
export function sendAnswer(
  reply: FastifyReply,
  server: RemoteServer,
  answer: McpAnswer,
  body: Readable,
  onFailure: (error: Error) => void,
): FastifyReply {
  const { response } = answer;
  const headers: Record<string, string> = {};
  for (const name of PASSED_RESPONSE_HEADERS) {
    const value = response.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  if (headers['content-type']?.startsWith('text/event-stream')) {
    headers['cache-control'] = 'no-cache';
    headers['x-accel-buffering'] = 'no';
  }
  const scrubber = scrubberFor(server, answer.authorization);
  // Written here, not by fastify's stream sending: the pump is lighter, and the scrubbing sits in it.
  reply.hijack();
  reply.raw.writeHead(response.statusCode, headers);
  pumpAnswer(body, reply.raw, scrubber && new LineScrubber(scrubber, server.name), onFailure);
  return reply;
}

const scrubbers = new WeakMap<RemoteServer, { authorization: string; scrubber: SecretScrubber }>();

/** The scrubber of the credential `authorization` carries (kept while the token stays the same). */
function scrubberFor(server: RemoteServer, authorization: string | undefined): SecretScrubber | undefined {
  const secret = authorization?.replace(/^Bearer /, '');
  if (!authorization || !secret) return undefined;
  const kept = scrubbers.get(server);
  if (kept?.authorization === authorization) return kept.scrubber;
  const name = server.credential.secretNames[0] ?? server.name;
  const scrubber = new SecretScrubber(
    new Map([[server.credential.refreshable ? `${name}_ACCESS_TOKEN` : name, secret]]),
  );
  scrubbers.set(server, { authorization, scrubber });
  return scrubber;
}

/** `: <the start of body>` in printable text, without the credential; '' for an empty body. */
async function quote(body: Readable, authorization: string | undefined): Promise<string> {
  let text = '';
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      text += chunk.toString('utf8');
      if (text.length >= QUOTED_FAILURE_CHARS * 4) break;
    }
  } catch {
    // A body that breaks off is quoted as far as it came.
  } finally {
    discard(body);
  }
  const secret = authorization?.replace(/^Bearer /, '');
  if (secret) text = text.replaceAll(secret, '[credential]');
  text = text
    .replace(/[^\x20-\x7e]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim()
    .slice(0, QUOTED_FAILURE_CHARS);
  return text === '' ? '' : `: ${text}`;
}
