import { stripInvisible } from '@openlegion/protocol';

/** Model APIs take tool names of letters, digits, `_` and `-`, at most 64 long (OpenAI, Anthropic). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** One tool's schema; larger ones cost every call thousands of tokens, and some APIs refuse them. */
export const MCP_SCHEMA_MAX_CHARS = 16_000;
/**
 * Nesting of JSON objects and arrays in a schema (each nested object property takes two: the
 * property and its `properties`), about nine levels of nested objects; deeper is no real tool's
 * and costs providers and the model alike.
 */
export const MCP_SCHEMA_MAX_DEPTH = 20;
/** A server's description is shown on every call: a long one is cut (and may not steer the model). */
export const MCP_DESCRIPTION_MAX_CHARS = 1_024;

/** What a server says about one of its tools (`tools/list`), as far as the model needs it. */
export interface McpToolListing {
  name: string;
  description?: string | undefined;
  inputSchema: unknown;
}

/** A server's tool as the model may see it, or why it may not. */
export type McpToolDefinition =
  | { ok: true; name: string; serverTool: string; description: string; parameters: Record<string, unknown> }
  | { ok: false; name: string; serverTool: string; reason: string };

/**
 * `server__tool` with the server's JSON Schema, checked so one bad tool cannot break every LLM
 * call (a provider refuses the whole request over one schema): a name with characters the APIs
 * refuse, a schema that is not an object, too large or too deep, is left out with its reason.
 */
export function mcpToolDefinition(server: string, tool: McpToolListing): McpToolDefinition {
  const name = `${server}__${tool.name}`;
  const skip = (reason: string): McpToolDefinition => ({ ok: false, name, serverTool: tool.name, reason });
  if (!TOOL_NAME.test(name)) {
    return skip(
      `its name "${name.slice(0, 80)}" is not 1-64 letters, digits, "_" or "-", which model APIs require`,
    );
  }
  const schema = tool.inputSchema;
  if (!isPlainObject(schema) || schema.type !== 'object') {
    return skip('its input schema is not a JSON Schema of type "object"');
  }
  const text = JSON.stringify(schema);
  if (text.length > MCP_SCHEMA_MAX_CHARS) {
    return skip(`its input schema is ${text.length} characters, over the ${MCP_SCHEMA_MAX_CHARS} allowed`);
  }
  const depth = nestingDepth(schema);
  if (depth > MCP_SCHEMA_MAX_DEPTH) {
    return skip(`its input schema nests ${depth} levels deep, over the ${MCP_SCHEMA_MAX_DEPTH} allowed`);
  }
  const { $schema: _dialect, ...parameters } = schema;
  return {
    ok: true,
    name,
    serverTool: tool.name,
    description: describe(server, tool.description),
    parameters,
  };
}

/** The server's words, marked as the server's, without invisible characters, and bounded. */
function describe(server: string, description: string | undefined): string {
  let text = stripInvisible(description ?? '').trim();
  if (text.length > MCP_DESCRIPTION_MAX_CHARS) text = `${text.slice(0, MCP_DESCRIPTION_MAX_CHARS)}…`;
  return `[MCP server ${server}] ${text || 'no description'}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Depth of objects and arrays; iterative, so a hostile schema cannot overflow the stack. */
function nestingDepth(root: unknown): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[root, 1]];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const [value, depth] = item;
    if (typeof value !== 'object' || value === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MCP_SCHEMA_MAX_DEPTH) return deepest;
    for (const child of Object.values(value)) pending.push([child, depth + 1]);
  }
  return deepest;
}
