import { type AgentTool, textResult } from '@openlegion/protocol';
import { z } from 'zod';

/** Tools a keyword search loads at most; a group name loads the whole group. */
export const TOOL_SEARCH_MAX_MATCHES = 6;

const toolSearchInput = z.object({
  query: z
    .string()
    .min(1)
    .max(200)
    .describe('Keywords (e.g. "click page"), a group name (e.g. browser), or exact tool names'),
});

export interface ToolSearchDeps {
  /** The permitted tools not offered from the start. */
  tools: readonly AgentTool[];
  isLoaded: (name: string) => boolean;
  load: (name: string) => void;
}

/**
 * `tool_search`: find tools by keyword, group or name and load them, so their schemas come with
 * the model's next call (and every later one of the conversation).
 */
export function createToolSearchTool(deps: ToolSearchDeps): AgentTool<z.infer<typeof toolSearchInput>> {
  const groups = groupCounts(deps.tools);
  return {
    name: 'tool_search',
    group: 'discovery',
    description:
      `Find and load more tools by keyword, group or exact name; loaded tools can be called from your ` +
      `next step on. Groups: ${[...groups].map(([group, count]) => `${group} (${count})`).join(', ')}.`,
    input: toolSearchInput,
    run: async (input) => {
      const matches = findTools(deps.tools, input.query);
      if (matches.length === 0) {
        return textResult(
          `No tool matches "${input.query}". Groups you can load: ${[...groups.keys()].join(', ')}.`,
        );
      }
      const lines = matches.map((tool) => {
        const was = deps.isLoaded(tool.name);
        deps.load(tool.name);
        return `- ${tool.name} (${tool.group})${was ? ' [already loaded]' : ''}: ${tool.description}`;
      });
      return textResult(`Loaded; call them from your next step:\n${lines.join('\n')}`);
    },
  };
}

/** Exact names and whole groups first; else the best keyword matches on name, group and description. */
export function findTools(tools: readonly AgentTool[], query: string): AgentTool[] {
  const words = query
    .toLowerCase()
    .split(/[\s,]+/)
    .map((word) => word.replace(/^group:/, ''))
    .filter(Boolean);
  const exact = tools.filter((tool) => words.includes(tool.name.toLowerCase()) || words.includes(tool.group));
  if (exact.length > 0) return exact;
  const scored = tools
    .map((tool) => ({ tool, score: score(tool, words) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score);
  return scored.slice(0, TOOL_SEARCH_MAX_MATCHES).map((entry) => entry.tool);
}

function score(tool: AgentTool, words: readonly string[]): number {
  const name = tool.name.toLowerCase();
  const description = tool.description.toLowerCase();
  let total = 0;
  for (const word of words) {
    if (word.length < 2) continue;
    if (name.includes(word)) total += 3;
    if (tool.group.includes(word)) total += 2;
    if (description.includes(word)) total += 1;
  }
  return total;
}

function groupCounts(tools: readonly AgentTool[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const tool of tools) counts.set(tool.group, (counts.get(tool.group) ?? 0) + 1);
  return counts;
}
