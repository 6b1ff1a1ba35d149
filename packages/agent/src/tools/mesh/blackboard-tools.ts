import {
  type AgentTool,
  blackboardEntrySchema,
  blackboardKeySchema,
  fenceUntrusted,
} from '@openlegion/protocol';
import { z } from 'zod';
import { guardTool } from '../tool-failure.js';
import type { MeshClient } from './mesh-client.js';

/** Characters of each value shown by blackboard_list (blackboard_get shows it all). */
const LIST_VALUE_CHARS = 200;

const keyField = blackboardKeySchema.describe('Blackboard key, e.g. research/findings/topic-a');
const getInput = z.object({ key: keyField });
const putInput = z.object({
  key: keyField,
  value: z.unknown().describe('Any JSON value: text, number, object or list'),
  if_version: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Write only if the entry is still at this version (0: only if the key does not exist yet)'),
  ttl_s: z.number().int().positive().max(31_536_000).optional().describe('Seconds until the entry vanishes'),
});
const listInput = z.object({
  prefix: z.string().max(256).default('').describe('Only keys starting with this, e.g. research/'),
  limit: z.number().int().min(1).max(1_000).default(100).describe('Most entries to return'),
});

const entryAnswer = z.object({ entry: blackboardEntrySchema });
const listAnswer = z.object({ entries: z.array(blackboardEntrySchema) });

/** `blackboard_get`, `blackboard_put` and `blackboard_list`: the mesh's shared key-value store. */
export function createBlackboardTools(mesh: MeshClient): AgentTool[] {
  const get: AgentTool<z.infer<typeof getInput>> = {
    name: 'blackboard_get',
    group: 'mesh',
    description:
      'Read one entry of the shared blackboard other agents also read and write: its value and version.',
    input: getInput,
    run: (input, context) =>
      guardTool(async () => {
        const { entry } = entryAnswer.parse(
          await mesh.call({
            method: 'GET',
            path: entryPath(input.key),
            signal: context.signal,
            traceId: context.traceId,
          }),
        );
        return `${describeEntry(entry)}\n${fenceUntrusted(`blackboard ${entry.key}`, JSON.stringify(entry.value, null, 2))}`;
      }),
  };
  const put: AgentTool<z.infer<typeof putInput>> = {
    name: 'blackboard_put',
    group: 'mesh',
    description:
      'Write an entry on the shared blackboard for other agents. Pass if_version (from blackboard_get) to avoid overwriting a newer write.',
    input: putInput,
    run: (input, context) =>
      guardTool(async () => {
        const body = {
          value: input.value ?? null,
          ...(input.if_version !== undefined ? { if_version: input.if_version } : {}),
          ...(input.ttl_s !== undefined ? { ttl_s: input.ttl_s } : {}),
        };
        const { entry } = entryAnswer.parse(
          await mesh.call({
            method: 'PUT',
            path: entryPath(input.key),
            body,
            signal: context.signal,
            traceId: context.traceId,
          }),
        );
        return `wrote ${entry.key}, now version ${entry.version}`;
      }),
  };
  const list: AgentTool<z.infer<typeof listInput>> = {
    name: 'blackboard_list',
    group: 'mesh',
    description:
      'List blackboard entries you may read whose keys start with a prefix, with a preview of each value.',
    input: listInput,
    run: (input, context) =>
      guardTool(async () => {
        const query = new URLSearchParams({ prefix: input.prefix, limit: String(input.limit) });
        const { entries } = listAnswer.parse(
          await mesh.call({
            method: 'GET',
            path: `/mesh/blackboard/entries?${query}`,
            signal: context.signal,
            traceId: context.traceId,
          }),
        );
        if (entries.length === 0) return `no entries${input.prefix ? ` under "${input.prefix}"` : ''}`;
        const lines = entries.map((entry) => {
          const value = JSON.stringify(entry.value);
          const preview = value.length > LIST_VALUE_CHARS ? `${value.slice(0, LIST_VALUE_CHARS)}…` : value;
          return `${describeEntry(entry)}: ${preview}`;
        });
        return `${entries.length} entries${entries.length === input.limit ? ' (limit reached)' : ''}\n${fenceUntrusted('blackboard list', lines.join('\n'))}`;
      }),
  };
  return [get, put, list] as AgentTool[];
}

/** The route for a key: each `/`-separated part encoded, the slashes kept (the route takes a wildcard). */
function entryPath(key: string): string {
  return `/mesh/blackboard/entries/${key.split('/').map(encodeURIComponent).join('/')}`;
}

function describeEntry(entry: z.infer<typeof blackboardEntrySchema>): string {
  const expires = entry.expires_at ? `, expires ${new Date(entry.expires_at).toISOString()}` : '';
  return `${entry.key} (version ${entry.version}, by ${entry.updated_by}, ${new Date(entry.updated_at).toISOString()}${expires})`;
}
