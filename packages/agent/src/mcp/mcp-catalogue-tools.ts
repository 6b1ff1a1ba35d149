import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type AgentTool, type ToolResult, textResult } from '@openlegion/protocol';
import { z } from 'zod';
import type { McpConnection } from './mcp-connection.js';
import type { McpManager } from './mcp-manager.js';
import { bounded, type McpContentPart, mcpToolResult, partText } from './mcp-result.js';

/** Entries of one list shown; a server with more says how many were left out. */
const LIST_MAX_ENTRIES = 100;
/** A listed entry's description, cut: the list is for finding, `mcp_read_resource` for reading. */
const ENTRY_DESCRIPTION_MAX_CHARS = 200;

const serverField = z.string().describe('the MCP server name (the part before "__" in its tools)');

/**
 * Three tools for what MCP servers offer besides tools, so many servers cost three schemas, not
 * three each: `mcp_list` (servers with their state and left-out tools, or one server's resources
 * or prompts), `mcp_read_resource` and `mcp_get_prompt`.
 */
export function createMcpCatalogueTools(manager: McpManager): AgentTool[] {
  const list: AgentTool<{ kind: 'servers' | 'resources' | 'prompts'; server?: string | undefined }> = {
    name: 'mcp_list',
    group: 'mcp',
    description:
      'List your MCP servers (state, errors, tools left out and why), or the resources or prompts one server offers.',
    input: z.object({
      kind: z.enum(['servers', 'resources', 'prompts']).default('servers').describe('what to list'),
      server: serverField.optional().describe('the server, for resources and prompts'),
    }),
    run: async ({ kind, server }) => {
      if (kind === 'servers') return textResult(serversText(manager));
      if (!server) return textResult(`say which server's ${kind} to list (server)`, true);
      return withServer(manager, server, (client) =>
        kind === 'resources' ? resourcesText(client) : promptsText(client),
      );
    },
  };
  const read: AgentTool<{ server: string; uri: string }> = {
    name: 'mcp_read_resource',
    group: 'mcp',
    description: 'Read one resource of an MCP server by its URI (from mcp_list kind resources).',
    input: z.object({ server: serverField, uri: z.string().min(1).describe('the resource URI') }),
    run: async ({ server, uri }) =>
      withServer(manager, server, async (client, connection) => {
        const answer = await client.readResource({ uri }, { timeout: connection.server.timeout_ms });
        return mcpToolResult({
          content: answer.contents.map((resource) => ({ type: 'resource', resource })),
        });
      }),
  };
  const prompt: AgentTool<{ server: string; name: string; arguments: Record<string, string> }> = {
    name: 'mcp_get_prompt',
    group: 'mcp',
    description:
      'Get one prompt of an MCP server, filled in with its arguments (from mcp_list kind prompts).',
    input: z.object({
      server: serverField,
      name: z.string().min(1).describe('the prompt name'),
      arguments: z.record(z.string(), z.string()).default({}).describe('the prompt arguments'),
    }),
    run: async ({ server, name, arguments: args }) =>
      withServer(manager, server, async (client, connection) => {
        const answer = await client.getPrompt(
          { name, arguments: args },
          { timeout: connection.server.timeout_ms },
        );
        const lines = answer.messages.map(
          (message) => `${message.role}: ${partText(message.content as McpContentPart)}`,
        );
        return textResult(bounded([answer.description ?? '', ...lines].filter(Boolean).join('\n')));
      }),
  };
  return [list, read, prompt] as AgentTool[];
}

/** Runs `use` on a ready server; an unknown or unready server, or a failed request, is the result. */
async function withServer(
  manager: McpManager,
  server: string,
  use: (client: Client, connection: McpConnection) => Promise<ToolResult>,
): Promise<ToolResult> {
  let connection: McpConnection;
  try {
    connection = manager.connection(server);
  } catch (error) {
    return textResult((error as Error).message, true);
  }
  const client = connection.ready;
  if (client === undefined) return textResult(connection.unavailableMessage(), true);
  try {
    return await use(client, connection);
  } catch (error) {
    return textResult(
      `MCP server ${server}: ${error instanceof Error ? error.message : String(error)}`,
      true,
    );
  }
}

function serversText(manager: McpManager): string {
  return manager
    .servers()
    .map((server) => {
      const offers = [server.resources ? 'resources' : '', server.prompts ? 'prompts' : ''].filter(Boolean);
      const skipped = manager
        .toolViews(server.name)
        .filter((tool) => tool.skipped)
        .map((tool) => `\n  left out: ${tool.server_tool}: ${tool.skipped}`)
        .join('');
      return (
        `${server.name} (${server.transport}): ${server.state}, ${server.tools} tools` +
        `${offers.length > 0 ? `, offers ${offers.join(' and ')}` : ''}` +
        `${server.restarts > 0 ? `, restarted ${server.restarts} times` : ''}` +
        `${server.error ? `\n  ${server.error}` : ''}${skipped}`
      );
    })
    .join('\n');
}

async function resourcesText(client: Client): Promise<ToolResult> {
  if (!client.getServerCapabilities()?.resources) return textResult('this server offers no resources');
  const [resources, templates] = await Promise.all([
    client.listResources(),
    client.listResourceTemplates().catch(() => ({ resourceTemplates: [] })),
  ]);
  const lines = [
    ...resources.resources.map((r) => `${r.uri}  ${r.name}${short(r.description)}`),
    ...templates.resourceTemplates.map(
      (t) => `${t.uriTemplate}  (template) ${t.name}${short(t.description)}`,
    ),
  ];
  return textResult(capped(lines, resources.nextCursor !== undefined));
}

async function promptsText(client: Client): Promise<ToolResult> {
  if (!client.getServerCapabilities()?.prompts) return textResult('this server offers no prompts');
  const listed = await client.listPrompts();
  const lines = listed.prompts.map((p) => {
    const args = (p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ');
    return `${p.name}(${args})${short(p.description)}`;
  });
  return textResult(lines.length === 0 ? 'no prompts' : capped(lines, listed.nextCursor !== undefined));
}

function short(description: string | undefined): string {
  if (!description) return '';
  return ` — ${description.length > ENTRY_DESCRIPTION_MAX_CHARS ? `${description.slice(0, ENTRY_DESCRIPTION_MAX_CHARS)}…` : description}`;
}

function capped(lines: string[], more: boolean): string {
  const shown = lines.slice(0, LIST_MAX_ENTRIES);
  const left = lines.length - shown.length;
  const tail = left > 0 || more ? `\n[more entries not shown${left > 0 ? `: ${left}` : ''}]` : '';
  return bounded(shown.join('\n') + tail);
}
