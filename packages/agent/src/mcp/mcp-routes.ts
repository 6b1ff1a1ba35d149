import { parseRequest } from '@openlegion/infra/http';
import {
  type McpCallAnswer,
  type McpServerStatus,
  type McpToolView,
  mcpCallRequestSchema,
  OpenLegionError,
  stripInvisible,
  type ToolResult,
} from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

/** What the routes need of the MCP manager (kept to types, so the server's chunk stays small). */
export interface McpOperator {
  servers(): McpServerStatus[];
  toolViews(server?: string): McpToolView[];
  call(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ToolResult>;
}

const toolsQuery = z.object({ server: z.string().min(1).optional() });

/**
 * The operator's MCP routes (the host forwards `/api/agents/:agent/mcp/*`; bearer auth comes from
 * the scope): `GET /mcp/servers`, `GET /mcp/tools[?server=]`, `POST /mcp/call`. They wait for the
 * agent's runtime, which starts the servers.
 */
export function mcpRoutes(mcp: () => Promise<McpOperator> | undefined) {
  const operator = async (): Promise<McpOperator> => {
    const pending = mcp();
    if (pending === undefined) {
      throw new OpenLegionError('AGENT_NOT_READY', 'the agent is still starting; try again in a moment');
    }
    return pending;
  };
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/mcp/servers', async () => ({ servers: (await operator()).servers() }));

    app.get('/mcp/tools', async (request) => {
      const { server } = parseRequest(toolsQuery, request.query, 'query');
      return { tools: (await operator()).toolViews(server) };
    });

    app.post('/mcp/call', async (request): Promise<McpCallAnswer> => {
      const body = parseRequest(mcpCallRequestSchema, request.body ?? {});
      // Bounded by the server's timeout_ms, like the model's calls.
      const result = await (await operator()).call(body.server, body.tool, body.arguments);
      return {
        // The server's words reach the operator's terminal: no control or bidi characters.
        text: stripInvisible(
          result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n'),
        ),
        is_error: result.isError === true,
        images: result.content.filter((part) => part.type === 'image').length,
      };
    });
  };
}
