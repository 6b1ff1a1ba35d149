import { z } from 'zod';
import { mcpServerSelfSchema } from './mcp-config.js';
import { SKILLS_PROMPT_CHARS_DEFAULT, TOOL_LOADING_MODES } from './skills-config.js';

/**
 * The one header that carries a trace id from hop to hop: CLI to host, host to agent, agent to host
 * (LLM, mesh, egress). W3C {@link TRACEPARENT_HEADER} travels beside it for OpenTelemetry.
 */
export const TRACE_HEADER = 'x-trace-id';

/**
 * W3C Trace Context: `00-<32 hex trace id>-<16 hex parent span id>-<2 hex flags>`. The host sends
 * it to an agent with each turn; the agent passes it on, unchanged, on every call it makes to the
 * host, so the host's spans of those calls hang under the turn's span.
 */
export const TRACEPARENT_HEADER = 'traceparent';

/** The W3C `traceparent` shape (version 00; all-zero ids are invalid). */
const TRACEPARENT = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A `traceparent` header's trace and parent span ids, or undefined when it is not a valid one. */
export function parseTraceparent(value: unknown): { traceId: string; spanId: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  return { traceId: match[1] as string, spanId: match[2] as string };
}

/** `POST /chat` on an agent (and `POST /api/agents/:agent/chat` on the host, which relays it). */
const message = z.string().min(1, 'message must not be empty').max(200_000);
const conversationId = z.string().min(1).max(200).default('default');
/** Where work entered the mesh (CLI, channel, cron, workflow); carried on every hop as {@link TRACE_HEADER}. */
const traceId = z.string().min(1).max(100).optional();

/** `POST /chat` on an agent (and `POST /api/agents/:agent/chat` on the host, which relays it). */
export const chatRequestSchema = z.object({ message, conversation_id: conversationId, trace_id: traceId });
export type ChatRequest = z.input<typeof chatRequestSchema>;

/**
 * `POST /chat/steer` on an agent: a message for the turn running in a conversation, applied after
 * its current tool round. `steered: false` when no turn is running: the caller then sends it as an
 * ordinary chat (a followup).
 */
export const steerRequestSchema = z.object({ message, conversation_id: conversationId });
export type SteerRequest = z.input<typeof steerRequestSchema>;
export const steerResponseSchema = z.object({ steered: z.boolean() });
export type SteerResponse = z.infer<typeof steerResponseSchema>;

/** `POST /task` on an agent: work to finish in task mode; answered with the same SSE events as chat. */
export const taskRequestSchema = z.object({
  task: message,
  conversation_id: z.string().min(1).max(200).optional(),
  max_iterations: z.number().int().min(1).max(200).optional(),
  trace_id: traceId,
});
export type TaskRequest = z.input<typeof taskRequestSchema>;

/**
 * `POST /heartbeat` on an agent. The host says what is pending; the agent probes for free first
 * (pending work, a non-empty HEARTBEAT.md) and calls the LLM only when something is actionable.
 */
export const heartbeatRequestSchema = z.object({
  pending_messages: z.number().int().nonnegative().default(0),
  pending_events: z.number().int().nonnegative().default(0),
  trace_id: traceId,
});
export type HeartbeatRequest = z.input<typeof heartbeatRequestSchema>;
export const heartbeatResponseSchema = z.object({
  /** Whether a turn ran (an LLM was called). */
  ran: z.boolean(),
  /** Why it ran or did not, e.g. `nothing actionable`. */
  reason: z.string(),
  reply: z.string(),
  /** A silent reply (`__SILENT__` or empty) is delivered nowhere. */
  silent: z.boolean(),
});
export type HeartbeatResponse = z.infer<typeof heartbeatResponseSchema>;

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
  /** Grows with every step of every turn (each event streamed); a busy agent whose progress stands still is hung. */
  progress: z.number().int().nonnegative(),
});
export type AgentStatus = z.infer<typeof agentStatusSchema>;

/**
 * The directives an agent reads at the start of a message (`/think`, `/compact`, `/model NAME`, ...;
 * docs/agent.md): a channel passes these on to the agent as the message they start, rather than
 * taking them for its own commands.
 */
export const AGENT_DIRECTIVES = [
  'think',
  'verbose',
  'reasoning',
  'quiet',
  'silent',
  'compact',
  'minimal',
  'coding',
  'messaging',
  'full',
  'model',
] as const;

export function isAgentDirective(name: string): boolean {
  return (AGENT_DIRECTIVES as readonly string[]).includes(name);
}

/** What the host tells an agent about itself (`GET /mesh/self`). */
export const agentSelfSchema = z.object({
  agent: z.string(),
  mesh: z.string(),
  role: z.string(),
  model: z.string(),
  soul: z.string(),
  /** A tool profile (`minimal`, `coding`, `messaging`, `full`) or a list of tool names. */
  tools: z.union([z.string(), z.array(z.string())]).default('full'),
  /** Context thresholds (ratios of the window) and compaction; see mesh.yaml `agents.NAME.context`. */
  context: z
    .object({
      window_tokens: z.number().int().positive().optional(),
      flush_at: z.number().default(0.6),
      compact_at: z.number().default(0.7),
      wrap_up_at: z.number().default(0.8),
      strategy: z.enum(['adaptive', 'progressive', 'truncate', 'lossless']).default('lossless'),
      keep_turns: z.number().int().positive().default(4),
    })
    .prefault({}),
  loop: z
    .object({
      max_tool_rounds: z.number().int().positive().default(30),
      max_task_iterations: z.number().int().positive().default(20),
      escalate: z.boolean().default(false),
      classify: z.boolean().default(false),
    })
    .prefault({}),
  browser: z
    .object({
      tier: z.enum(['basic', 'cdp', 'stealth']).default('basic'),
      /** For tier `cdp`: the endpoint, resolved from the vault by the host. */
      cdp_url: z.string().optional(),
      evaluate: z.boolean().default(false),
      idle_timeout_ms: z.number().int().positive().default(300_000),
    })
    .prefault({}),
  /**
   * mesh.yaml `agents.NAME.memory`, resolved by the host: `embedder` is `local` or the provider/model
   * the agent embeds with through the host's `/v1/embeddings` (`agents.NAME.memory.embedder`, else
   * `llm.embedding_model`, else `local`). Absent from an older host: local, the defaults below.
   */
  memory: z
    .object({
      embedder: z.string().default('local'),
      recall_chars: z.number().int().nonnegative().default(2_000),
      /**
       * The shared scopes recall searches besides the agent's own: those `permissions.memory.read`
       * names (`global`, `squad:NAME`; `global` also for a pattern such as `*`). A squad granted by
       * a glob (`squad:*`) is read with memory_search only: recall does not guess squad names.
       */
      shared_scopes: z.array(z.string()).default([]),
      fast_tier: z
        .object({
          extract: z.boolean().default(true),
          dedup: z.boolean().default(true),
          admission: z.boolean().default(false),
          rerank: z.boolean().default(false),
        })
        .prefault({}),
    })
    .prefault({}),
  /** mesh.yaml `agents.NAME.skills`; absent from an older host: none disabled, default budget. */
  skills: z
    .object({
      disabled: z.array(z.string()).default([]),
      prompt_chars: z.number().int().nonnegative().default(SKILLS_PROMPT_CHARS_DEFAULT),
    })
    .prefault({}),
  /** mesh.yaml `agents.NAME.tool_loading`: `on_demand` (default) or `all`. */
  tool_loading: z.enum(TOOL_LOADING_MODES).default('on_demand'),
  /**
   * The MCP servers this agent uses (its own stdio ones and the fleet's it is granted); remote ones
   * are reached through the host, so their address and credential are not here. Absent: none.
   */
  mcp: z.array(mcpServerSelfSchema).default([]),
  /**
   * mesh.yaml `agents.NAME.approval`: globs of the tools whose calls wait for the operator's yes
   * (`POST /mesh/approvals`) before they run. Absent from an older host: none.
   */
  approval: z.array(z.string()).default([]),
});
export type AgentSelf = z.infer<typeof agentSelfSchema>;
