import {
  type AgentTool,
  fenceUntrusted,
  SEARCH_DEFAULT_COUNT,
  SEARCH_FRESHNESS,
  SEARCH_PATH,
  SEARCH_QUERY_MAX_CHARS,
  type SearchAnswer,
  searchAnswerSchema,
} from '@openlegion/protocol';
import { z } from 'zod';
import type { MeshClient } from '../mesh/mesh-client.js';
import { guardTool } from '../tool-failure.js';

/** The host tries providers one after another, each within its timeout (10 s by default). */
const SEARCH_CALL_TIMEOUT_MS = 60_000;

const webSearchInput = z.object({
  query: z
    .string()
    .describe(`What to search for, in a few key words (at most ${SEARCH_QUERY_MAX_CHARS} characters)`),
  count: z
    .number()
    .int()
    .min(1)
    .max(20)
    .optional()
    .describe(`How many results (default ${SEARCH_DEFAULT_COUNT}, at most 20)`),
  freshness: z
    .enum(SEARCH_FRESHNESS)
    .optional()
    .describe('Only pages from the last day, week, month or year'),
});

/**
 * `web_search`: a web search made by the host (`POST /mesh/search`) with the providers of
 * mesh.yaml's `search:`; the agent holds no key and sends nothing through its egress. The model gets
 * numbered results (title, URL, snippet, date), fenced as untrusted text; a refusal (no permission,
 * no provider, a bad query, every provider down) comes back as an error result saying what to do.
 */
export function createWebSearchTool(mesh: MeshClient): AgentTool<z.infer<typeof webSearchInput>> {
  return {
    name: 'web_search',
    group: 'web',
    description:
      'Search the web; get numbered results with title, URL and snippet. Then read the pages worth reading with web_fetch.',
    input: webSearchInput,
    run: (input, context) =>
      guardTool(async () => {
        const answer = searchAnswerSchema.parse(
          await mesh.call({
            method: 'POST',
            path: SEARCH_PATH,
            body: input,
            signal: context.signal,
            traceId: context.traceId,
            timeoutMs: SEARCH_CALL_TIMEOUT_MS,
          }),
        );
        return formatAnswer(answer);
      }),
  };
}

/** The answer as the model reads it: a header line, then the results numbered, fenced. */
export function formatAnswer(answer: SearchAnswer): string {
  const from = answer.providers.join(', ');
  const notes = [
    ...(answer.cached ? ['from the cache'] : []),
    ...answer.skipped.map(({ provider, reason }) => `${provider} skipped: ${reason}`),
  ];
  const header = `${answer.results.length} result${answer.results.length === 1 ? '' : 's'} for "${answer.query}" (${from}${notes.length ? `; ${notes.join('; ')}` : ''})`;
  if (answer.results.length === 0) return `${header}. Try other or fewer words.`;
  const list = answer.results
    .map((result, index) =>
      [
        `${index + 1}. ${result.title}`,
        `   ${result.url}`,
        ...(result.snippet ? [`   ${result.snippet}`] : []),
        ...(result.published ? [`   published ${result.published}`] : []),
      ].join('\n'),
    )
    .join('\n');
  return `${header}:\n${fenceUntrusted(`web_search ${answer.query}`, list)}`;
}
