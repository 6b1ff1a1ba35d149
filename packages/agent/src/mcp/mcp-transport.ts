import type { Stream } from 'node:stream';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerSelf } from '@openlegion/protocol';
import { guardStdout } from './mcp-stdout-guard.js';

/** PATH for a stdio server when the agent's own has none: the image's usual places. */
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface McpTransportOptions {
  /** The host (`MESH_URL`) and this agent's token: remote servers are reached through the host. */
  mesh: { meshUrl: string; token: string };
  /** The agent's workspace: a stdio server's working directory. */
  workspace: string;
  /** PATH and HOME, from the agent's environment (nothing else of it is passed on). */
  env?: NodeJS.ProcessEnv;
  /** A stdio server's longest stdout line (default MCP_STDOUT_LINE_MAX_BYTES); tests set less. */
  stdoutLineMaxBytes?: number;
}

/** A transport, and for stdio the server's stderr (piped, so the caller can bound what it keeps). */
export interface McpTransport {
  transport: Transport;
  stderr?: Stream | null;
  /** Why the transport itself stopped the server (a stdout flood), once it has. */
  problem?: () => string | undefined;
}

/**
 * The transport to one server. stdio: the server runs as a child of the agent (same user and
 * container) with the literal env from mesh.yaml plus PATH and HOME only, never the agent's own
 * environment, which holds its mesh token. Remote: the host's `/mesh/mcp/NAME` (Streamable HTTP)
 * or `/mesh/mcp/NAME/sse` (legacy SSE), with the agent's bearer token; the host adds the server's
 * credential from the vault.
 */
export function createMcpTransport(server: McpServerSelf, options: McpTransportOptions): McpTransport {
  if (server.transport === 'stdio') {
    const env = options.env ?? process.env;
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: {
        PATH: env.PATH ?? DEFAULT_PATH,
        ...(env.HOME ? { HOME: env.HOME } : {}),
        ...server.env,
      },
      cwd: options.workspace,
      stderr: 'pipe',
    });
    let problem: string | undefined;
    guardStdout(transport, (reason) => (problem = reason), options.stdoutLineMaxBytes);
    return { transport, stderr: transport.stderr, problem: () => problem };
  }
  const base = `${options.mesh.meshUrl.replace(/\/+$/, '')}/mesh/mcp/${encodeURIComponent(server.name)}`;
  const requestInit: RequestInit = { headers: { authorization: `Bearer ${options.mesh.token}` } };
  if (server.transport === 'sse') {
    return {
      transport: new SSEClientTransport(new URL(`${base}/sse`), {
        requestInit,
        // The SSE stream's GET goes through the SDK's EventSource, which takes headers from fetch.
        eventSourceInit: {
          fetch: (url, init) =>
            fetch(url, {
              ...init,
              headers: {
                ...(init?.headers as Record<string, string>),
                authorization: `Bearer ${options.mesh.token}`,
              },
            }),
        },
      }),
    };
  }
  return { transport: new StreamableHTTPClientTransport(new URL(base), { requestInit }) };
}
