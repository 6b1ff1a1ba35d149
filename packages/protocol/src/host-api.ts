import { z } from 'zod';
import { agentStateSchema } from './agent-api.js';

export const AGENT_PORT = 8400;
export const DEFAULT_HOST_PORT = 8420;

/** `POST /mesh/ready`: an agent reports it is listening (identity from its bearer token). */
export const agentReadyRequestSchema = z.object({
  url: z.string().url().optional(),
  version: z.string().optional(),
});

/** One agent in `GET /api/status`. */
export const agentInfoSchema = z.object({
  name: z.string(),
  state: agentStateSchema,
  runtime: z.enum(['docker', 'process', 'swarm']),
  model: z.string(),
  url: z.string().nullable(),
  container: z.string().nullable(),
  started_at: z.string().nullable(),
  ready_at: z.string().nullable(),
  /** Times the host restarted it during this host run (the health monitor, or `openlegion restart`). */
  restarts: z.number().int().nonnegative().default(0),
  last_error: z.string().nullable().default(null),
  /** A temporary agent (fleet spawn): not in mesh.yaml, removed when its task ends or its TTL does. */
  temporary: z.boolean().optional(),
});
export type AgentInfo = z.infer<typeof agentInfoSchema>;

export const meshStatusSchema = z.object({
  mesh: z.string(),
  version: z.string(),
  pid: z.number().int(),
  url: z.string(),
  started_at: z.string(),
  runtime: z.enum(['docker', 'process', 'swarm']),
  agents: z.array(agentInfoSchema),
  /**
   * The mesh network's lockdown: `locked` (firewall rules keep agents to the host's mesh and egress
   * ports), `unlocked` (the operator allowed a start without them), `none` (the process runtime has
   * no mesh network to lock). Absent before the network exists, and from older hosts.
   */
  network: z.enum(['locked', 'unlocked', 'none']).optional(),
  /** What the operator must know: e.g. the network lockdown could not be installed. */
  warnings: z.array(z.string()).default([]),
});
export type MeshStatus = z.infer<typeof meshStatusSchema>;
