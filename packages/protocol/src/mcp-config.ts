import { z } from 'zod';
import { secretRef } from './config-fields.js';
import type { DeepReadonly } from './deep-readonly.js';

/**
 * MCP servers in mesh.yaml (docs/tools.md). Two kinds:
 * - stdio: run inside the agent's container, by the agent. Its `env` takes literal values only,
 *   because the container is where a hostile agent lives: a server that needs a secret runs
 *   remotely, through the host.
 * - remote (Streamable HTTP, or legacy SSE): reached through the host (`/mesh/mcp/NAME`), which
 *   adds the credential from the vault, so the token never enters a container.
 * Fleet-wide servers live under `mcp.servers` and are granted per agent (`permissions.mcp`);
 * `agents.NAME.mcp` adds stdio servers only that agent runs.
 */

/**
 * A server name becomes the prefix of its tools (`NAME__tool`), so it has no `__` and stays short
 * (model APIs cap tool names at 64 characters).
 */
export const mcpServerName = z
  .string()
  .regex(
    /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/,
    'use lower-case letters, digits and single "-", starting with a letter (it prefixes tool names: NAME__tool)',
  )
  .max(24, 'keep server names to 24 characters: tool names are NAME__tool and models allow 64');

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'use an environment variable name');

/** Per-call limit: a tool call that takes longer ends with a clear result, not a hung turn. */
const timeoutMs = z.number().int().min(100).max(600_000).default(60_000);

export const mcpStdioServerSchema = z
  .object({
    command: z.string().min(1),
    args: z.array(z.string()).max(64).default([]),
    env: z
      .record(
        envName,
        z
          .string()
          .max(4_096)
          .refine((value) => !/^(vault|env):/.test(value), {
            message:
              'stdio MCP servers run in the agent container and take literal values only; run a server that needs a secret remotely (mcp.servers.NAME.url, auth from the vault)',
          }),
      )
      .default({}),
    timeout_ms: timeoutMs,
  })
  .strict();
export type McpStdioServerConfig = z.infer<typeof mcpStdioServerSchema>;

/** OAuth 2.1 client credentials: the host fetches and refreshes the access token. */
const mcpOAuthSchema = z
  .object({
    token_url: z.url({ protocol: /^https?$/ }),
    client_id: z.string().min(1),
    client_secret: secretRef,
    scope: z.string().optional(),
  })
  .strict();

export const mcpRemoteServerSchema = z
  .object({
    url: z.url({ protocol: /^https?$/ }),
    /** `streamable-http` (MCP 2025-03-26 and later) or the legacy `sse` transport (2024-11-05). */
    transport: z.enum(['streamable-http', 'sse']).default('streamable-http'),
    /** How the host authenticates to the server; the agent never sees it. */
    auth: z
      .union([z.object({ bearer: secretRef }).strict(), z.object({ oauth: mcpOAuthSchema }).strict()])
      .optional(),
    timeout_ms: timeoutMs,
  })
  .strict();
export type McpRemoteServerConfig = z.infer<typeof mcpRemoteServerSchema>;

export const mcpServerSchema = z.union([mcpStdioServerSchema, mcpRemoteServerSchema], {
  error: 'an MCP server has either command (stdio, runs in the agent) or url (remote, through the host)',
});
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

export function isRemoteMcpServer(
  server: DeepReadonly<McpServerConfig>,
): server is DeepReadonly<McpRemoteServerConfig> {
  return 'url' in server;
}

/** mesh.yaml `mcp`: the fleet's servers, each used only by the agents granted it. */
export const mcpSectionSchema = z
  .object({
    servers: z.record(mcpServerName, mcpServerSchema).default({}),
  })
  .strict();

/**
 * One server as `GET /mesh/self` tells an agent: what it runs itself (stdio, with command, args and
 * literal env) or reaches through the host (`<MESH_URL>/mesh/mcp/NAME` for streamable-http,
 * `<MESH_URL>/mesh/mcp/NAME/sse` for sse). No URL or credential of a remote server is included.
 */
export const mcpServerSelfSchema = z.discriminatedUnion('transport', [
  z.object({
    name: z.string(),
    transport: z.literal('stdio'),
    command: z.string(),
    args: z.array(z.string()),
    env: z.record(z.string(), z.string()),
    timeout_ms: z.number().int().positive(),
  }),
  z.object({
    name: z.string(),
    transport: z.enum(['streamable-http', 'sse']),
    timeout_ms: z.number().int().positive(),
  }),
]);
export type McpServerSelf = z.infer<typeof mcpServerSelfSchema>;
