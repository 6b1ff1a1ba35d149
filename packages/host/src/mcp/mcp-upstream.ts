import type { Readable } from 'node:stream';
import { OpenLegionError } from '@openlegion/protocol';
import type { Agent, Dispatcher } from 'undici';
import { TOKEN_ANSWER_MAX_BYTES, type TokenPost } from './mcp-credential.js';
import { guardedLookup, mcpAddressRefusal } from './upstream-address.js';

/** How long a connection to an MCP server may take to open. */
const CONNECT_TIMEOUT_MS = 10_000;

/** One request to a remote MCP server, credential already set. */
export interface McpUpstreamRequest {
  server: string;
  /** How messages name the peer; default `MCP server "NAME"`. */
  label?: string;
  url: URL;
  method: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body?: Buffer | undefined;
  /** Until the status and headers arrive; the body is then bounded by `signal` alone. */
  headersTimeoutMs: number;
  signal: AbortSignal;
}

/** The host's own connections to remote MCP servers (never through the agents' egress proxy). */
export interface McpUpstream {
  /**
   * Send the request; resolves with any status, the body not read. Rejects with
   * MCP_UPSTREAM_FAILED (unreachable, refused address) or MCP_UPSTREAM_TIMEOUT.
   */
  request(request: McpUpstreamRequest): Promise<Dispatcher.ResponseData>;
  /** A form POST to `server`'s OAuth token endpoint, read whole (at most 64 KiB). */
  postForm(server: string, ...post: Parameters<TokenPost>): ReturnType<TokenPost>;
  close(): Promise<void>;
}

type Undici = typeof import('undici');

/**
 * One keep-alive pool per MCP server origin over undici (loaded at the first call, as the LLM proxy
 * and search do). It follows no redirect, resolves names through {@link guardedLookup} and refuses
 * a literal address the same way, and keeps no body timeout of its own: an SSE stream may be quiet
 * for long, and the caller's signal ends what should end.
 */
export function createMcpUpstream(): McpUpstream {
  let opened: Promise<Agent> | undefined;
  const agent = () =>
    (opened ??= (import('undici') as Promise<Undici & { default?: Undici }>).then((loaded) => {
      // A bundle's dynamic import gives a CommonJS package only as `default` (see llm's upstream pool).
      const undici = loaded.default?.Agent ? loaded.default : loaded;
      return new undici.Agent({ connect: { timeout: CONNECT_TIMEOUT_MS, lookup: guardedLookup } });
    }));
  // Hosts come from mesh.yaml and the same origin's endpoints: a few, judged once each.
  const judged = new Map<string, string | undefined>();
  const literalRefusal = (hostname: string): string | undefined => {
    if (judged.has(hostname)) return judged.get(hostname);
    const literal = hostname.replace(/^\[(.*)\]$/, '$1');
    const refused = /^[\d.]+$|:/.test(literal) ? mcpAddressRefusal(literal) : undefined;
    if (judged.size < 1_000) judged.set(hostname, refused);
    return refused;
  };
  const request = async (call: McpUpstreamRequest): Promise<Dispatcher.ResponseData> => {
    const { url, server } = call;
    const label = call.label ?? `MCP server "${server}"`;
    const refused = literalRefusal(url.hostname);
    if (refused)
      throw new OpenLegionError('MCP_UPSTREAM_FAILED', `${label} at ${url.host}: ${refused}`, {
        details: { server },
      });
    try {
      return await (await agent()).request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: call.method,
        headers: call.headers,
        ...(call.body === undefined ? {} : { body: call.body }),
        headersTimeout: call.headersTimeoutMs,
        bodyTimeout: 0,
        signal: call.signal,
      });
    } catch (error) {
      throw upstreamFailure(server, url, call.headersTimeoutMs, error, call.signal, label);
    }
  };
  return {
    request,
    async postForm(server, url, form, timeoutMs) {
      const answer = await request({
        server,
        label: `the OAuth token endpoint of MCP server "${server}"`,
        url,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: Buffer.from(form.toString()),
        headersTimeoutMs: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of answer.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > TOKEN_ANSWER_MAX_BYTES) {
          discard(answer.body);
          throw new OpenLegionError(
            'MCP_UPSTREAM_FAILED',
            `the OAuth token endpoint of MCP server "${server}" (${url.host}) sent more than ${TOKEN_ANSWER_MAX_BYTES} bytes`,
          );
        }
        chunks.push(chunk);
      }
      return { status: answer.statusCode, text: Buffer.concat(chunks).toString('utf8') };
    },
    async close() {
      if (opened) await (await opened).destroy();
    },
  };
}

/** What a failed request becomes: a timeout (504) or an unreachable server (502), by name. */
export function upstreamFailure(
  server: string,
  url: URL,
  timeoutMs: number,
  error: unknown,
  signal?: AbortSignal,
  label = `MCP server "${server}"`,
): OpenLegionError {
  const code = (error as { code?: string }).code ?? '';
  const details = { server, host: url.host };
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || (signal?.aborted && signal.reason?.name === 'TimeoutError'))
    return new OpenLegionError(
      'MCP_UPSTREAM_TIMEOUT',
      `${label} (${url.host}) did not answer within ${timeoutMs} ms (mcp.servers.${server}.timeout_ms)`,
      { cause: error, details },
    );
  const reason = error instanceof Error ? error.message : String(error);
  return new OpenLegionError(
    'MCP_UPSTREAM_FAILED',
    `${label} (${url.host}) could not be reached: ${reason}`,
    { cause: error, details },
  );
}

/**
 * Drop an answer's body unread. undici's body reports an unfinished one as an `error` when
 * destroyed, which with no listener would end the host; here it is expected.
 */
export function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}
