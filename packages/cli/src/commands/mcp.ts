import { loadMeshConfig } from '@openlegion/host/config';
import {
  isRemoteMcpServer,
  type MeshConfig,
  mcpCallAnswerSchema,
  mcpServersAnswerSchema,
  mcpToolsAnswerSchema,
  OpenLegionError,
} from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CommandKit } from '../command-kit.js';
import { connectToHost, requestJson } from '../host-connection.js';

/** One configured server as `openlegion mcp list` prints it (never a credential's value). */
export interface McpServerRow {
  name: string;
  /** `fleet` (mesh.yaml `mcp.servers`) or the agent whose own (`agents.NAME.mcp`) it is. */
  scope: string;
  transport: string;
  /** The command line of a stdio server, the URL of a remote one. */
  target: string;
  /** How the host authenticates to a remote server: bearer, oauth or none. */
  auth: string;
  agents: string[];
}

/** The servers mesh.yaml configures and the agents that use each. */
export function mcpServerRows(config: MeshConfig): McpServerRow[] {
  const agents = Object.entries(config.agents);
  const fleet = Object.entries(config.mcp.servers).map(([name, server]): McpServerRow => {
    const granted = agents
      .filter(([, agent]) => agent.permissions.mcp.includes(name))
      .map(([agent]) => agent);
    if (isRemoteMcpServer(server)) {
      const auth = server.auth === undefined ? 'none' : 'bearer' in server.auth ? 'bearer' : 'oauth';
      return { name, scope: 'fleet', transport: server.transport, target: server.url, auth, agents: granted };
    }
    const target = [server.command, ...server.args].join(' ');
    return { name, scope: 'fleet', transport: 'stdio', target, auth: 'none', agents: granted };
  });
  const own = agents.flatMap(([agent, settings]) =>
    Object.entries(settings.mcp).map(
      ([name, server]): McpServerRow => ({
        name,
        scope: agent,
        transport: 'stdio',
        target: [server.command, ...server.args].join(' '),
        auth: 'none',
        agents: [agent],
      }),
    ),
  );
  return [...fleet, ...own];
}

/** `JSON` arguments of `mcp call`: one object. */
export function parseToolArguments(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new OpenLegionError(
      'REQUEST_INVALID',
      `the tool arguments are not JSON: ${(cause as Error).message}`,
      {
        cause,
      },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new OpenLegionError(
      'REQUEST_INVALID',
      'the tool arguments must be one JSON object, e.g. \'{"message":"hi"}\'',
    );
  }
  return value as Record<string, unknown>;
}

/**
 * `openlegion mcp list | tools AGENT [SERVER] | call AGENT SERVER TOOL [JSON]`: the MCP servers
 * mesh.yaml configures, and (through the host, which forwards to the agent) what an agent's servers
 * offer and one call as the operator.
 */
export function registerMcpCommands(program: Command, kit: CommandKit): void {
  const mcp = program.command('mcp').description("MCP servers: configured ones, an agent's tools, a call");
  mcp
    .command('list')
    .description('the servers mesh.yaml configures and the agents granted each (no host needed)')
    .addOption(kit.configOption())
    .option('--json', 'print JSON')
    .action((options: { config: string; json?: boolean }) =>
      kit.run(async () => {
        const rows = mcpServerRows((await loadMeshConfig(options.config)).config);
        if (options.json) kit.output.out(`${JSON.stringify(rows, null, 2)}\n`);
        else if (rows.length === 0)
          kit.output.out('no MCP servers in mesh.yaml (see docs/tools.md, "MCP servers")\n');
        for (const row of options.json ? [] : rows) {
          const auth = row.transport === 'stdio' ? '' : `, auth ${row.auth}`;
          const agents = row.agents.length > 0 ? row.agents.join(', ') : 'no agent granted';
          kit.output.out(
            `${row.name}  ${row.transport} (${row.scope}${auth})  ${row.target}\n  agents: ${agents}\n`,
          );
        }
        return 0;
      })(),
    );
  mcp
    .command('tools')
    .description("an agent's MCP servers with their state, and their tools (left-out ones with the reason)")
    .argument('<agent>', 'agent name')
    .argument('[server]', 'only this server')
    .addOption(kit.configOption())
    .action((agent: string, server: string | undefined, options: { config: string }) =>
      kit.run(async () => {
        const host = await connectToHost(options.config);
        const route = (path: string) => `/api/agents/${encodeURIComponent(agent)}/mcp/${path}`;
        const { servers } = await requestJson(host, 'GET', route('servers'), mcpServersAnswerSchema);
        const query = server ? `?server=${encodeURIComponent(server)}` : '';
        const { tools } = await requestJson(host, 'GET', route(`tools${query}`), mcpToolsAnswerSchema);
        for (const status of servers.filter((s) => !server || s.name === server)) {
          const restarts = status.restarts > 0 ? `, ${status.restarts} restarts` : '';
          kit.output.out(
            `${status.name}  ${status.transport}  ${status.state}, ${status.tools} tools${restarts}\n`,
          );
          if (status.error) kit.output.out(`  ${status.error}\n`);
        }
        for (const tool of tools) {
          kit.output.out(
            tool.skipped
              ? `  ${tool.name}  LEFT OUT: ${tool.skipped}\n`
              : `  ${tool.name}  ${tool.description}\n`,
          );
        }
        return 0;
      })(),
    );
  mcp
    .command('call')
    .description(
      "call one tool of an agent's MCP server as the operator; exit 1 when the tool reports an error",
    )
    .argument('<agent>', 'agent name')
    .argument('<server>', 'the server name')
    .argument('<tool>', "the server's tool name (without the server__ prefix)")
    .argument('[json]', 'the arguments, one JSON object', '{}')
    .addOption(kit.configOption())
    .action((agent: string, server: string, tool: string, json: string, options: { config: string }) =>
      kit.run(async () => {
        const body = { server, tool, arguments: parseToolArguments(json) };
        const host = await connectToHost(options.config);
        const route = `/api/agents/${encodeURIComponent(agent)}/mcp/call`;
        const answer = await requestJson(host, 'POST', route, mcpCallAnswerSchema, body);
        const images = answer.images > 0 ? `\n[${answer.images} image(s) not shown]` : '';
        kit.output.out(`${answer.text}${images}\n`);
        return answer.is_error ? 1 : 0;
      })(),
    );
}
