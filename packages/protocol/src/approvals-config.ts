import { z } from 'zod';

/**
 * How tool calls that ask first wait for the operator (docs/tools.md, "Tools that ask first").
 * Workflow steps that wait for approval are not bound by these: a run waits as long as it must.
 */
export const approvalsConfigSchema = z
  .object({
    /**
     * How long a tool call waits for a decision before it is refused as timed out (the model is
     * told, the turn goes on). Ten minutes: long enough to notice a prompt and read the call,
     * short enough that a turn nobody watches ends instead of holding its lane for hours.
     */
    timeout_ms: z.number().int().min(1_000).max(86_400_000).default(600_000),
    /**
     * Tool calls one agent may hold waiting at once. A model may call a few tools in one round, so
     * more than one; an agent (untrusted) asking for more is refused (`APPROVAL_TOO_MANY`), so it
     * cannot flood the operator or the host with requests.
     */
    max_pending_per_agent: z.number().int().min(1).max(100).default(4),
  })
  .strict();
export type ApprovalsConfig = z.infer<typeof approvalsConfigSchema>;
