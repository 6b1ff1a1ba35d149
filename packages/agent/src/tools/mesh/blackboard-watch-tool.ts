import { type AgentTool, fenceUntrusted, globPatternSchema } from '@openlegion/protocol';
import { z } from 'zod';
import { guardTool } from '../tool-failure.js';
import type { MeshClient } from './mesh-client.js';
import { frameJson } from './mesh-events.js';
import { MAX_EVENT_WAIT_S } from './subscription-tools.js';

/** Changes that land together (one writer's burst) come back together. */
const SETTLE_MS = 200;
/** Characters of each changed value shown. */
const VALUE_CHARS = 2_000;

const watchInput = z.object({
  pattern: globPatternSchema.describe(
    'A key or a glob of keys, e.g. research/findings/* (keys you may read)',
  ),
  timeout_s: z
    .number()
    .int()
    .min(1)
    .max(MAX_EVENT_WAIT_S)
    .default(60)
    .describe(`Seconds to wait for a change (at most ${MAX_EVENT_WAIT_S})`),
  max: z.number().int().min(1).max(20).default(5).describe('Most changes to return'),
});

const changeSchema = z.object({
  kind: z.enum(['put', 'delete']),
  key: z.string(),
  version: z.number(),
  by: z.string(),
  at: z.number(),
  entry: z.object({ value: z.unknown() }).passthrough().optional(),
});

/** `blackboard_watch`: wait for the next change to keys matching a pattern, then return it. */
export function createBlackboardWatchTool(mesh: MeshClient): AgentTool {
  const watch: AgentTool<z.infer<typeof watchInput>> = {
    name: 'blackboard_watch',
    group: 'mesh',
    description:
      'Wait until another agent writes or deletes a blackboard key matching a pattern (or the timeout passes), and return the change.',
    input: watchInput,
    run: (input, context) =>
      guardTool(async () => {
        const frames = await mesh.events({
          path: `/mesh/blackboard/watch?${new URLSearchParams({ pattern: input.pattern })}`,
          waitMs: input.timeout_s * 1000,
          max: input.max,
          settleMs: SETTLE_MS,
          signal: context.signal,
          traceId: context.traceId,
        });
        const changes = frames.flatMap((frame) => {
          const parsed = changeSchema.safeParse(frameJson(frame));
          return parsed.success ? [parsed.data] : [];
        });
        if (changes.length === 0) return `no change to ${input.pattern} within ${input.timeout_s} s`;
        const lines = changes.map((change) => {
          const when = new Date(change.at).toISOString();
          if (change.kind === 'delete') return `${change.key} deleted by ${change.by} at ${when}`;
          const value = JSON.stringify(change.entry?.value ?? null);
          const shown = value.length > VALUE_CHARS ? `${value.slice(0, VALUE_CHARS)}…` : value;
          return `${change.key} now version ${change.version}, by ${change.by} at ${when}: ${shown}`;
        });
        return `${changes.length} changes\n${fenceUntrusted('blackboard changes', lines.join('\n'))}`;
      }),
  };
  return watch as AgentTool;
}
