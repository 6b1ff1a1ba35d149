import { z } from 'zod';
import { squadNameSchema } from './shared-memory-api.js';

/** `POST /mesh/spawn` (agents) and `POST /api/spawn` (the operator): a temporary agent from a template. */
export const spawnRequestSchema = z
  .object({
    /** A name under `templates:` in mesh.yaml. */
    template: z.string().min(1).max(64),
    /** The temporary agent's first (and only) message. */
    task: z.string().min(1).max(100_000),
    /** Seconds until it is removed whatever it is doing (default `limits.temporary_agent_ttl_s`). */
    ttl_s: z.number().int().min(10).max(86_400).optional(),
    /**
     * Wait up to this long for its answer and return it (then it is not also put into the
     * spawner's lane). Without it, or past it, the answer arrives in the spawner's lane.
     */
    wait_s: z.number().int().min(1).max(3_600).optional(),
    /**
     * A squad (seed 003) whose memory the temporary agent starts with and adds its lessons to (default:
     * the template's `squad`). An agent spawner needs `permissions.memory` read and write on `squad:NAME`.
     */
    squad: squadNameSchema.optional(),
  })
  .strict();
export type SpawnRequest = z.infer<typeof spawnRequestSchema>;

/** How a temporary agent's run stands: starting and running, or how it ended. */
export const SPAWN_STATES = ['starting', 'running', 'done', 'failed', 'expired'] as const;
export type SpawnState = (typeof SPAWN_STATES)[number];

/** One temporary agent, as its spawner (or the operator) sees it. */
export const spawnedAgentSchema = z.object({
  /** Its generated name, `TEMPLATE-xxxx`. */
  name: z.string(),
  template: z.string(),
  /** The agent that spawned it; null for the operator and cron. */
  spawner: z.string().nullable(),
  /** `agent`, `operator` or `cron` (then `cron_job` names the job). */
  origin: z.enum(['agent', 'operator', 'cron']),
  state: z.enum(SPAWN_STATES),
  task: z.string(),
  /** The squad whose memory it started with and adds its lessons to (absent: none). */
  squad: z.string().optional(),
  /** Its answer once done; the error once failed or expired. */
  result: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
  ended_at: z.string().nullable(),
});
export type SpawnedAgent = z.infer<typeof spawnedAgentSchema>;

/** `GET /mesh/spawn` (the caller's own) and `GET /api/spawn` (all), newest first. */
export const spawnedAgentsSchema = z.object({ agents: z.array(spawnedAgentSchema) });
export type SpawnedAgents = z.infer<typeof spawnedAgentsSchema>;

/** The answer of `POST /mesh/spawn` and `GET /mesh/spawn/NAME`. */
export const spawnedAgentAnswerSchema = z.object({ agent: spawnedAgentSchema });
