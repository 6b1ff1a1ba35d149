import {
  type AgentTool,
  fenceUntrusted,
  type SpawnedAgent,
  spawnedAgentAnswerSchema,
  spawnedAgentsSchema,
  squadNameSchema,
} from '@openlegion/protocol';
import { z } from 'zod';
import { guardTool } from '../tool-failure.js';
import type { MeshClient } from './mesh-client.js';

/** Extra time the HTTP call gets beyond the host's own wait for the answer. */
const WAIT_MARGIN_MS = 10_000;

const spawnInput = z.object({
  template: z.string().min(1).max(64).describe('A template of mesh.yaml your permissions.spawn allows'),
  task: z.string().min(1).max(100_000).describe('The whole task, complete in itself: it knows nothing else'),
  wait_s: z
    .number()
    .int()
    .min(1)
    .max(3_600)
    .optional()
    .describe(
      'Wait up to this long for its answer and return it; without it, the answer arrives as a message',
    ),
  ttl_s: z
    .number()
    .int()
    .min(10)
    .max(86_400)
    .optional()
    .describe('Remove it after this long whatever it is doing (default from mesh.yaml limits)'),
  squad: squadNameSchema
    .optional()
    .describe(
      "A squad whose memory it starts with and adds its lessons to (default: the template's; needs permissions.memory read and write on squad:NAME)",
    ),
});
const listInput = z.object({
  name: z.string().min(1).max(64).optional().describe('One of them, by name; all of yours when left out'),
});

/**
 * `spawn_agent` (a temporary agent from a template of mesh.yaml, in its own container, with one
 * task; removed when done) and `spawned_agents` (how the ones it started stand, with their answers).
 */
export function createSpawnTools(mesh: MeshClient): AgentTool[] {
  const spawn: AgentTool<z.infer<typeof spawnInput>> = {
    name: 'spawn_agent',
    group: 'mesh',
    description:
      'Start a temporary agent from a mesh.yaml template with one task; its answer comes back as a message (or now, with wait_s).',
    input: spawnInput,
    run: (input, context) =>
      guardTool(async () => {
        const { agent } = spawnedAgentAnswerSchema.parse(
          await mesh.call({
            method: 'POST',
            path: '/mesh/spawn',
            body: {
              template: input.template,
              task: input.task,
              ...(input.ttl_s !== undefined ? { ttl_s: input.ttl_s } : {}),
              ...(input.wait_s !== undefined ? { wait_s: input.wait_s } : {}),
              ...(input.squad !== undefined ? { squad: input.squad } : {}),
            },
            signal: context.signal,
            traceId: context.traceId,
            ...(input.wait_s !== undefined ? { timeoutMs: input.wait_s * 1000 + WAIT_MARGIN_MS } : {}),
          }),
        );
        if (agent.ended_at !== null) return describe(agent);
        const squad = agent.squad !== undefined ? `, squad ${agent.squad}` : '';
        return `started ${agent.name} (template ${agent.template}${squad}, removed at ${agent.expires_at} at the latest); its answer will arrive as a message`;
      }),
  };
  const list: AgentTool<z.infer<typeof listInput>> = {
    name: 'spawned_agents',
    group: 'mesh',
    description: 'The temporary agents you started: state, and the answer of those that finished.',
    input: listInput,
    run: (input, context) =>
      guardTool(async () => {
        if (input.name !== undefined) {
          const { agent } = spawnedAgentAnswerSchema.parse(
            await mesh.call({
              method: 'GET',
              path: `/mesh/spawn/${encodeURIComponent(input.name)}`,
              signal: context.signal,
              traceId: context.traceId,
            }),
          );
          return describe(agent);
        }
        const { agents } = spawnedAgentsSchema.parse(
          await mesh.call({
            method: 'GET',
            path: '/mesh/spawn',
            signal: context.signal,
            traceId: context.traceId,
          }),
        );
        if (agents.length === 0) return 'you have started no temporary agents';
        return agents.map((agent) => `${agent.name} (${agent.template}): ${agent.state}`).join('\n');
      }),
  };
  return [spawn, list] as AgentTool[];
}

/** One agent with its answer (fenced: another agent wrote it) or its error. */
function describe(agent: SpawnedAgent): string {
  const head = `${agent.name} (template ${agent.template}): ${agent.state}`;
  if (agent.result === null) return head;
  return `${head}\n${fenceUntrusted(`temporary agent ${agent.name}`, agent.result)}`;
}
