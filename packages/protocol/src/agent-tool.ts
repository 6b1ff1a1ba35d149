import type { z } from 'zod';

/**
 * The groups tools are filed under; mesh.yaml tool profiles (`minimal`, `coding`, `messaging`,
 * `full`) are unions of groups. `mcp` holds the tools of the MCP servers the operator gave the agent.
 * `skills` holds `skill_view`; `discovery` holds `tool_search`, which the loop adds itself when
 * tools load on demand.
 */
export const TOOL_GROUPS = [
  'files',
  'runtime',
  'web',
  'memory',
  'mesh',
  'browser',
  'mcp',
  'skills',
  'discovery',
] as const;
export type ToolGroup = (typeof TOOL_GROUPS)[number];

/** One piece of what a tool returns to the model: text, or an image for multimodal models. */
export type ToolContent =
  | { type: 'text'; text: string }
  | { type: 'image'; mimeType: string; data: string /* base64 */ };

/** What a tool run gives back. `isError` tells the model the call failed and why (it can act on it). */
export interface ToolResult {
  content: ToolContent[];
  isError?: boolean;
}

/** What the agent hands every tool run: where its files live, and a signal that ends the run. */
export interface ToolContext {
  /** Absolute path of the agent's workspace (`/data/workspace` in a container). */
  workspace: string;
  signal: AbortSignal;
  /** The trace the turn runs under; tools that call the host send it on (`x-trace-id`). */
  traceId?: string;
  /** Progress a long tool may report (shown to the user as a notice). */
  notice?: (message: string) => void;
  /** The conversation the turn belongs to: tools that read history keep to it (`lcm_*`). */
  conversationId?: string;
}

/**
 * A tool the agent's loop can offer the model. Packages that provide tools (memory, browser, the
 * agent's own core tools) export them in this one shape; the agent registers them.
 * `input` is a zod schema: it validates the model's arguments and gives the model its JSON Schema.
 */
export interface AgentTool<Input = unknown> {
  name: string;
  group: ToolGroup;
  description: string;
  input: z.ZodType<Input>;
  /**
   * The JSON Schema the model sees, when the tool brings its own (an MCP server's tool) instead of
   * one derived from `input`; `input` then only checks the shape and the server checks the rest.
   */
  parameters?: Readonly<Record<string, unknown>>;
  run(input: Input, context: ToolContext): Promise<ToolResult>;
}

/** A text-only result, the common case. */
export function textResult(text: string, isError = false): ToolResult {
  return isError ? { content: [{ type: 'text', text }], isError } : { content: [{ type: 'text', text }] };
}
