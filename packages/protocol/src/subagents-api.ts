import { z } from 'zod';

/** A subagent's state: running, or how it ended. */
export const SUBAGENT_STATES = ['running', 'done', 'failed', 'timed_out', 'over_budget', 'killed'] as const;

/** One in-container subagent as the operator sees it (`openlegion subagents AGENT`, REPL `/subagents`). */
export const subagentViewSchema = z.object({
  id: z.string(),
  /** 1 for the agent's own children, 2 for theirs, … */
  depth: z.number().int().positive(),
  role: z.string(),
  state: z.enum(SUBAGENT_STATES),
  /** Prompt plus completion tokens spent so far (charged to the agent's budget). */
  tokens: z.number().int().nonnegative(),
  task: z.string(),
  started_at: z.string(),
  /** Null while it runs. */
  ended_at: z.string().nullable(),
});
export type SubagentView = z.infer<typeof subagentViewSchema>;

/** `GET /subagents/` on an agent (`GET /api/agents/:agent/subagents/` through the host), oldest first. */
export const subagentsListSchema = z.object({ subagents: z.array(subagentViewSchema) });
export type SubagentsList = z.infer<typeof subagentsListSchema>;

/**
 * Sent by an agent with {@link TRACE_HEADER} on the calls a subagent makes (its LLM calls, its
 * tools' mesh calls): the chain of subagent ids from the agent down, so a trace shows the tree.
 */
export const SUBAGENT_HEADER = 'x-subagent';

/** `sub-1a2b3c4d` or `sub-1a2b3c4d/sub-5e6f7a8b`...: at most 3 deep, as subagents nest. */
export const subagentPathSchema = z.string().regex(/^sub-[0-9a-f]{8}(\/sub-[0-9a-f]{8}){0,2}$/);
