import { z } from 'zod';

/** `POST /chat` on an agent (and `POST /api/agents/:agent/chat` on the host, which relays it). */
export const chatRequestSchema = z.object({
  message: z.string().min(1, 'message must not be empty').max(200_000),
  conversation_id: z.string().min(1).max(200).default('default'),
});
export type ChatRequest = z.input<typeof chatRequestSchema>;

export const agentStateSchema = z.enum(['starting', 'ready', 'busy', 'stopping', 'stopped', 'failed']);
export type AgentState = z.infer<typeof agentStateSchema>;

/** `GET /status` on an agent: no auth, nothing secret. */
export const agentStatusSchema = z.object({
  agent: z.string(),
  state: agentStateSchema,
  version: z.string(),
  model: z.string(),
  uptime_ms: z.number().nonnegative(),
  conversations: z.number().int().nonnegative(),
});
export type AgentStatus = z.infer<typeof agentStatusSchema>;

/** What the host tells an agent about itself (`GET /mesh/self`). */
export const agentSelfSchema = z.object({
  agent: z.string(),
  mesh: z.string(),
  role: z.string(),
  model: z.string(),
  soul: z.string(),
});
export type AgentSelf = z.infer<typeof agentSelfSchema>;
