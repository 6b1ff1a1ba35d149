import {
  type AgentTool,
  type McpServerSelf,
  type McpServerStatus,
  type McpToolView,
  OpenLegionError,
  type ToolResult,
} from '@openlegion/protocol';
import type { Logger } from 'pino';
import { z } from 'zod';
import { createMcpCatalogueTools } from './mcp-catalogue-tools.js';
import { McpConnection } from './mcp-connection.js';
import type { McpTransport } from './mcp-transport.js';

/** Arguments go to the server as the model sent them; the server checks them against its schema. */
const mcpArguments = z.record(z.string(), z.unknown());

export interface McpManagerOptions {
  /** The agent's servers (`GET /mesh/self` `mcp`). */
  servers: readonly McpServerSelf[];
  transport: (server: McpServerSelf) => McpTransport;
  logger: Logger;
  /** The offered tools changed (a server became ready, crashed, or re-listed its tools). */
  onToolsChanged?: () => void;
  initTimeoutMs?: number;
  restartDelaysMs?: readonly number[];
}

/**
 * The agent's MCP servers: each a connection of its own, their tools as agent tools
 * (`server__tool`, group `mcp`), plus `mcp_list`, `mcp_read_resource` and `mcp_get_prompt` when
 * there is any server. The operator's routes read and call through it too.
 */
export class McpManager {
  private readonly connections = new Map<string, McpConnection>();
  private offered: AgentTool[] = [];
  private readonly catalogue: AgentTool[];

  constructor(private readonly options: McpManagerOptions) {
    for (const server of options.servers) {
      this.connections.set(
        server.name,
        new McpConnection({
          server,
          transport: options.transport,
          logger: options.logger,
          onChange: () => this.rebuild(),
          ...(options.initTimeoutMs ? { initTimeoutMs: options.initTimeoutMs } : {}),
          ...(options.restartDelaysMs ? { restartDelaysMs: options.restartDelaysMs } : {}),
        }),
      );
    }
    this.catalogue = this.connections.size > 0 ? createMcpCatalogueTools(this) : [];
    this.offered = [...this.catalogue];
  }

  /** Starts every server at once; resolves when each is ready or has failed its first start. */
  async start(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.start()));
  }

  /** The tools to offer the model now. */
  tools(): readonly AgentTool[] {
    return this.offered;
  }

  connection(server: string): McpConnection {
    const connection = this.connections.get(server);
    if (connection === undefined) {
      const known = [...this.connections.keys()].join(', ') || 'none';
      throw new OpenLegionError(
        'AGENT_MCP_SERVER_UNKNOWN',
        `this agent has no MCP server "${server}"; its servers: ${known}`,
        {
          details: { server },
        },
      );
    }
    return connection;
  }

  servers(): McpServerStatus[] {
    return [...this.connections.values()].map((connection) => {
      const capabilities = connection.ready?.getServerCapabilities();
      return {
        name: connection.name,
        transport: connection.server.transport,
        state: connection.state,
        tools: connection.tools.filter((tool) => tool.ok).length,
        skipped: connection.tools.filter((tool) => !tool.ok).length,
        resources: capabilities?.resources !== undefined,
        prompts: capabilities?.prompts !== undefined,
        restarts: connection.restarts,
        ...(connection.error ? { error: connection.error } : {}),
      };
    });
  }

  /** Every tool of one server or all, with the reason a tool is not offered. */
  toolViews(server?: string): McpToolView[] {
    const connections = server ? [this.connection(server)] : [...this.connections.values()];
    return connections.flatMap((connection) =>
      connection.tools.map((tool) => ({
        name: tool.name,
        server_tool: tool.serverTool,
        description: tool.ok ? tool.description : '',
        ...(tool.ok ? {} : { skipped: tool.reason }),
      })),
    );
  }

  /** The operator's call (`POST /mcp/call`): unknown server or tool, and an unready server, are errors. */
  async call(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    const connection = this.connection(server);
    if (connection.state === 'failed' || connection.state === 'closed') {
      throw new OpenLegionError('AGENT_MCP_SERVER_UNAVAILABLE', connection.unavailableMessage(), {
        details: { server },
      });
    }
    if (connection.state === 'ready' && !connection.tools.some((known) => known.serverTool === tool)) {
      const names = connection.tools.map((known) => known.serverTool).join(', ') || 'none';
      throw new OpenLegionError(
        'AGENT_MCP_TOOL_UNKNOWN',
        `MCP server ${server} has no tool "${tool}"; its tools: ${names}`,
        {
          details: { server, tool },
        },
      );
    }
    return connection.call(tool, args, signal ? { signal } : {});
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.close()));
  }

  private rebuild(): void {
    const served = [...this.connections.values()].flatMap((connection) =>
      connection.tools.flatMap((tool): AgentTool[] =>
        tool.ok
          ? [
              {
                name: tool.name,
                group: 'mcp',
                description: tool.description,
                input: mcpArguments,
                parameters: tool.parameters,
                run: (input, context) =>
                  connection.call(tool.serverTool, input as Record<string, unknown>, {
                    signal: context.signal,
                    ...(context.notice ? { onProgress: context.notice } : {}),
                  }),
              },
            ]
          : [],
      ),
    );
    this.offered = [...this.catalogue, ...served];
    this.options.onToolsChanged?.();
  }
}
