import { type AgentTool, isOpenLegionError, textResult } from '@openlegion/protocol';
import { z } from 'zod';
import type { MemoryEngine } from '../memory-engine.js';
import { MAX_QUERY_CHARS } from '../retrieval/retrieval-config.js';
import type { SearchResult } from '../retrieval/search.js';
import { MAX_CONTENT_CHARS } from '../write/normalize-fact.js';

const searchInput = z.object({
  query: z.string().min(1).max(MAX_QUERY_CHARS).describe('What to look for, in plain words'),
  limit: z.number().int().min(1).max(20).default(5).describe('How many memories to return'),
  category: z
    .string()
    .optional()
    .describe('Only this category (profile, preferences, entities, events, cases, patterns, ...)'),
  scope: z
    .string()
    .optional()
    .describe('Only this scope, e.g. global or project:<id>; default: your own and global'),
});

const saveInput = z.object({
  content: z
    .string()
    .min(1)
    .max(MAX_CONTENT_CHARS)
    .describe('The fact to remember, complete and self-contained'),
  abstract: z.string().max(200).optional().describe('One line summing it up'),
  category: z
    .string()
    .optional()
    .describe('profile, preferences, entities, events, cases, patterns, or a new snake_case name'),
  importance: z.number().min(0).max(1).optional().describe('0..1, how much it matters later (default 0.5)'),
  scope: z
    .string()
    .optional()
    .describe('Where it belongs, e.g. global or project:<id>; default: your own scope'),
});

export interface MemoryToolsOptions {
  /** The memory engine (or a getter, for an engine opened lazily). */
  memory: MemoryEngine | (() => MemoryEngine);
  /** Use the category-first search (chat) instead of the flat one (tasks). */
  hierarchical?: boolean;
}

/**
 * The `memory_search` and `memory_save` tools in the agent's tool shape. Bad input (unknown scope or
 * category, empty query) comes back as an error result the model can correct, not as a throw.
 */
export function createMemoryTools(options: MemoryToolsOptions): {
  memorySearch: AgentTool<z.infer<typeof searchInput>>;
  memorySave: AgentTool<z.infer<typeof saveInput>>;
} {
  const engine = () => (typeof options.memory === 'function' ? options.memory() : options.memory);
  return {
    memorySearch: {
      name: 'memory_search',
      group: 'memory',
      description: 'Search your long-term memory for facts, preferences, people, events and past solutions.',
      input: searchInput,
      run: (input, context) =>
        asToolResult(async () => {
          const request = {
            query: input.query,
            limit: input.limit,
            signal: context.signal,
            ...(input.category ? { categories: [input.category] } : {}),
            ...(input.scope ? { scopes: [input.scope] } : {}),
          };
          const memory = engine();
          const result = options.hierarchical
            ? await memory.searchHierarchical(request)
            : await memory.search(request);
          return formatResults(result);
        }),
    },
    memorySave: {
      name: 'memory_save',
      group: 'memory',
      description:
        'Save a fact to long-term memory so later conversations can find it. Duplicates are merged or skipped.',
      input: saveInput,
      run: (input, context) =>
        asToolResult(async () => {
          const report = await engine().save([{ ...input, source: 'tool' }], { signal: context.signal });
          const outcome = report.outcomes[0];
          return outcome
            ? `${outcome.action}${outcome.id !== null ? ` (item ${outcome.id})` : ''}: ${outcome.reason}`
            : 'nothing saved';
        }),
    },
  };
}

function formatResults(result: SearchResult): string {
  if (result.hits.length === 0) return `No memories found (${result.mode}).`;
  const lines = result.hits.map(
    ({ item, score }) =>
      `- [${item.id}] (${item.category}, ${item.scope}, score ${score.toFixed(2)}) ${item.abstract}` +
      (item.content !== item.abstract ? `\n  ${item.content.replaceAll('\n', '\n  ')}` : ''),
  );
  return `${result.hits.length} memories (${result.mode}, ${result.strategy}):\n${lines.join('\n')}`;
}

async function asToolResult(work: () => Promise<string>) {
  try {
    return textResult(await work());
  } catch (error) {
    if (isOpenLegionError(error)) return textResult(`${error.code}: ${error.message}`, true);
    throw error;
  }
}
