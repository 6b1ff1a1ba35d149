import type { ToolContent, ToolResult } from '@openlegion/protocol';

/**
 * An MCP result's text; the loop cuts a tool message at 60 000 characters too, but an MCP result
 * also reaches the operator's `openlegion mcp call`, so it is bounded here first.
 */
export const MCP_RESULT_MAX_CHARS = 60_000;
/** Images a result may show the model; each costs about as much as a page of text. */
export const MCP_RESULT_MAX_IMAGES = 4;
/** One image, base64 (about 1.5 MB decoded): providers refuse larger ones. */
export const MCP_IMAGE_MAX_BASE64_CHARS = 2_000_000;

/** The parts of `tools/call`'s result (and of `resources/read`, `prompts/get`) this agent reads. */
export interface McpContentPart {
  type: string;
  text?: unknown;
  data?: unknown;
  mimeType?: unknown;
  uri?: unknown;
  name?: unknown;
  resource?: unknown;
}

/**
 * An MCP result as the agent's tool result: text as text, images as images (bounded in number and
 * size), embedded resources as their text or a line naming them, links, audio and unknown kinds as
 * a line. Structured content stands in when there is no content. The loop fences it as untrusted.
 */
export function mcpToolResult(result: Record<string, unknown>, prefix?: string): ToolResult {
  // Servers of protocol 2024-10-07 answer `{ toolResult }` instead of content.
  if (result.content === undefined && 'toolResult' in result) {
    return mcpToolResult({ content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] }, prefix);
  }
  const parts = Array.isArray(result.content) ? (result.content as McpContentPart[]) : [];
  const content: ToolContent[] = [];
  const texts: string[] = prefix ? [prefix] : [];
  let images = 0;
  for (const part of parts) {
    if (part.type === 'image' && typeof part.data === 'string' && typeof part.mimeType === 'string') {
      if (images >= MCP_RESULT_MAX_IMAGES || part.data.length > MCP_IMAGE_MAX_BASE64_CHARS) {
        texts.push(`[image ${part.mimeType}, ${kilobytes(part.data)} KB: left out (too many or too large)]`);
        continue;
      }
      images += 1;
      content.push({ type: 'image', mimeType: part.mimeType, data: part.data });
      continue;
    }
    texts.push(partText(part));
  }
  if (parts.length === 0 && result.structuredContent !== undefined) {
    texts.push(JSON.stringify(result.structuredContent));
  }
  const text = bounded(texts.join('\n'));
  return {
    content: [{ type: 'text', text }, ...content],
    ...(result.isError === true ? { isError: true } : {}),
  };
}

/** One non-image part as text. */
export function partText(part: McpContentPart): string {
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string' ? part.text : '';
    case 'resource': {
      const resource = (part.resource ?? {}) as McpContentPart;
      const uri = String(resource.uri ?? 'resource');
      if (typeof resource.text === 'string') return `[resource ${uri}]\n${resource.text}`;
      const size = typeof resource.data === 'string' ? kilobytes(resource.data) : 0;
      return `[resource ${uri}, ${String(resource.mimeType ?? 'binary')}, ${size} KB: binary, not shown]`;
    }
    case 'resource_link':
      return `[resource link ${String(part.uri)}${part.name ? ` (${String(part.name)})` : ''}: read it with mcp_read_resource]`;
    case 'audio':
      return `[audio ${String(part.mimeType ?? '')}, ${typeof part.data === 'string' ? kilobytes(part.data) : 0} KB: not shown]`;
    default:
      return `[content of type "${String(part.type).slice(0, 40)}": not shown]`;
  }
}

/** Text cut to MCP_RESULT_MAX_CHARS, saying how much was cut. */
export function bounded(text: string): string {
  if (text.length <= MCP_RESULT_MAX_CHARS) return text;
  return `${text.slice(0, MCP_RESULT_MAX_CHARS)}\n[… ${text.length - MCP_RESULT_MAX_CHARS} more characters cut]`;
}

function kilobytes(base64: string): number {
  return Math.round((base64.length * 3) / 4 / 1024);
}
