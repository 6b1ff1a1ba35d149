import { z } from 'zod';

/**
 * The agent's MCP routes for the operator (`/mcp/*` on the agent; the host forwards
 * `/api/agents/:agent/mcp/*`): `openlegion mcp tools` and `openlegion mcp call`.
 */

/** Where a server's connection stands. `restarting` is a crash being recovered from with backoff. */
export const MCP_SERVER_STATES = ['starting', 'ready', 'restarting', 'failed', 'closed'] as const;
export type McpServerState = (typeof MCP_SERVER_STATES)[number];

/** One tool of a server; `skipped` says why the model is not offered it (a schema it cannot take). */
export const mcpToolViewSchema = z.object({
  name: z.string(),
  server_tool: z.string(),
  description: z.string(),
  skipped: z.string().optional(),
});
export type McpToolView = z.infer<typeof mcpToolViewSchema>;

export const mcpServerStatusSchema = z.object({
  name: z.string(),
  transport: z.enum(['stdio', 'streamable-http', 'sse']),
  state: z.enum(MCP_SERVER_STATES),
  tools: z.number().int(),
  skipped: z.number().int(),
  resources: z.boolean(),
  prompts: z.boolean(),
  restarts: z.number().int(),
  /** Why it is not ready (the last start or crash), with the end of the server's stderr. */
  error: z.string().optional(),
});
export type McpServerStatus = z.infer<typeof mcpServerStatusSchema>;

/** `GET /mcp/servers`. */
export const mcpServersAnswerSchema = z.object({ servers: z.array(mcpServerStatusSchema) });

/** `GET /mcp/tools[?server=NAME]`. */
export const mcpToolsAnswerSchema = z.object({ tools: z.array(mcpToolViewSchema) });

/** `POST /mcp/call`: one tool of one server, as the operator (no model in between). */
export const mcpCallRequestSchema = z.object({
  server: z.string().min(1),
  tool: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
});

/** The result as the model would see it, before fencing: text, and images as counts. */
export const mcpCallAnswerSchema = z.object({
  text: z.string(),
  is_error: z.boolean(),
  images: z.number().int(),
});
export type McpCallAnswer = z.infer<typeof mcpCallAnswerSchema>;
