import { z } from 'zod';
import { modelRef, providerModel, resourcesSchema, secretRef } from './config-fields.js';
import { credentialGrantsSchema } from './credential-grant.js';
import type { DeepReadonly } from './deep-readonly.js';
import { egressEntrySchema } from './egress-presets.js';
import { mcpServerName, mcpStdioServerSchema } from './mcp-config.js';
import { globPatternSchema, topicPatternSchema } from './pattern-bounds.js';
import { sharedScopePatternSchema } from './shared-memory-api.js';
import { agentSkillsSchema, toolLoadingSchema } from './skills-config.js';

/** One agent in mesh.yaml (`agents.NAME`): its model, tools, permissions, schedule and limits. */

// Bounded like every pattern the host matches (see pattern-bounds.ts), so `config validate` names a wild one.
const globList = z.array(globPatternSchema).default([]);

const permissionsSchema = z
  .object({
    blackboard: z.object({ read: globList, write: globList }).strict().prefault({}),
    pubsub: z.object({ publish: globList, subscribe: globList }).strict().prefault({}),
    message: z.array(z.string()).default([]),
    credentials: credentialGrantsSchema,
    /** Host globs, literal addresses, CIDRs and presets (`'@web'`: any public host); default none. */
    egress: z.array(egressEntrySchema).default([]),
    /**
     * The ports this agent may reach through the egress proxy and `/mesh/http` (CONNECT, plain
     * HTTP and API calls alike). Not `mesh.egress_port`, the proxy's own port. Default: the web's
     * two, so an agent that may browse cannot also reach SSH, SMTP or a database on an allowed host.
     */
    egress_ports: z.array(z.number().int().min(1).max(65_535)).default([80, 443]),
    /**
     * May use `web_search` (`POST /mesh/search`; the host calls the providers of mesh.yaml's
     * `search:`). Off by default: a search can cost money and sends the agent's words outside.
     */
    search: z.boolean().default(false),
    /**
     * The shared memory scopes (`global`, `squad:NAME`, globs such as `squad:*`) this agent may
     * search and read, and save to; the host keeps them (docs/memory.md). Default none: a fact
     * one agent writes there reaches every reader's prompt, so sharing is granted, never assumed.
     */
    memory: z
      .object({
        read: z.array(sharedScopePatternSchema).default([]),
        write: z.array(sharedScopePatternSchema).default([]),
      })
      .strict()
      .prefault({}),
    /** The fleet's MCP servers (`mcp.servers`) this agent may use; default none. */
    mcp: z.array(mcpServerName).default([]),
    /**
     * The `templates:` this agent may start temporary agents from (`spawn_agent`, `POST
     * /mesh/spawn`; globs). Default none: each spawn is a container and its LLM spend.
     */
    spawn: globList,
  })
  .strict();

const cronEntrySchema = z
  .object({
    /** `every 30m`, `at 2026-12-01T09:00:00Z`, or 5 cron fields (`0 9 * * 1-5`). */
    schedule: z.string().min(1),
    /** An IANA timezone for cron fields, e.g. Europe/Berlin (default: the host's). */
    timezone: z.string().min(1).optional(),
    message: z.string().optional(),
    heartbeat: z.boolean().default(false),
    /**
     * A template of `templates:`: each run starts a temporary agent from it with `message` as its
     * task (docs/mesh.md, "Fleet spawn") instead of messaging this agent.
     */
    spawn: z.string().min(1).optional(),
  })
  .strict()
  .refine((entry) => !(entry.spawn && entry.heartbeat), {
    message: 'a spawn entry cannot be a heartbeat',
    path: ['heartbeat'],
  });

export const TOOL_PROFILES = ['minimal', 'coding', 'messaging', 'full'] as const;

/** `lossless` keeps a summary DAG over the stored messages (agent `context/lossless/`). */
export const COMPACTION_STRATEGIES = ['adaptive', 'progressive', 'truncate', 'lossless'] as const;
export type CompactionStrategy = (typeof COMPACTION_STRATEGIES)[number];

/** How an agent keeps a conversation inside its model's context window (ratios of the window). */
const contextSchema = z
  .object({
    /** The model's window in tokens; default: the agent's table of known models. */
    window_tokens: z.number().int().min(1_000).max(10_000_000).optional(),
    /** A silent flush turn saves facts to memory once per compaction cycle. */
    flush_at: z.number().gt(0).lt(1).default(0.6),
    /** Older turns are summarised. */
    compact_at: z.number().gt(0).lt(1).default(0.7),
    /** The prompt asks the model to wrap up or save facts. */
    wrap_up_at: z.number().gt(0).lt(1).default(0.8),
    /**
     * `lossless` by default: nothing leaves for good (the summary DAG and the lcm tools get every
     * message back); `adaptive`, `progressive` and `truncate` fold or drop older turns instead.
     */
    strategy: z.enum(COMPACTION_STRATEGIES).default('lossless'),
    /** Recent turns always kept verbatim by compaction. */
    keep_turns: z.number().int().min(1).max(100).default(4),
  })
  .strict()
  .refine((c) => c.flush_at < c.compact_at && c.compact_at < c.wrap_up_at, {
    message: 'use flush_at < compact_at < wrap_up_at',
  });

/** Caps on an agent's loop. */
const loopSchema = z
  .object({
    /** Tool rounds in one chat turn. */
    max_tool_rounds: z.number().int().min(1).max(500).default(30),
    /** Iterations of one task (`POST /task`) unless the task asks for fewer. */
    max_task_iterations: z.number().int().min(1).max(500).default(20),
    /**
     * Opt-in (seed 004): a turn that uses up its tool rounds, or repeats one call until the loop
     * detector would stop it, gets one more try on the `complex` tier (a new allowance of rounds)
     * instead of ending. Off by default: the complex tier costs several times more.
     */
    escalate: z.boolean().default(false),
  })
  .strict();

export const BROWSER_TIERS = ['basic', 'cdp', 'stealth'] as const;
export type BrowserTier = (typeof BROWSER_TIERS)[number];

/** The agent's browser: local Chromium (`basic`, `stealth`) or a remote one over CDP. */
const browserSchema = z
  .object({
    tier: z.enum(BROWSER_TIERS).default('basic'),
    /** For tier `cdp`: the browser's CDP endpoint, kept in the vault (it often carries a token). */
    cdp_url: secretRef.optional(),
    /** Allow the `browser_evaluate` tool (runs the model's JavaScript in the page). */
    evaluate: z.boolean().default(false),
    /** Close the browser after this long unused. */
    idle_timeout_ms: z.number().int().min(1_000).max(86_400_000).default(300_000),
  })
  .strict();

/**
 * The LLM paths of the memory engine that run on the `fast` tier (each off runs its heuristic).
 * Defaults weigh a call's cost against how often it runs; see docs/memory.md.
 */
const memoryFastTierSchema = z
  .object({
    /** Facts (with categories) from the flush turn's transcript: one call per compaction cycle, so on. */
    extract: z.boolean().default(true),
    /** Merge/supersede/skip of a new fact: a call only when a similar item is already stored, so on. */
    dedup: z.boolean().default(true),
    /**
     * Admission control (today a scored heuristic, no call) on every save. Off: memory_save is the
     * agent saying "keep this", and a rejected fact is lost without the agent knowing.
     */
    admission: z.boolean().default(false),
    /** LLM rerank of every search. Off: automatic recall searches before each turn, so it would add a call per turn. */
    rerank: z.boolean().default(false),
  })
  .strict();

/** The agent's memory: how it embeds, how much it recalls, which paths use the fast tier. */
const memorySchema = z
  .object({
    /**
     * `local` (the offline hashed-word embedder), a provider/model or a tier, called through the
     * host's `/v1/embeddings`. Default: `llm.embedding_model` when set, else `local`.
     */
    embedder: z
      .string()
      .refine(
        (value) => value === 'local' || modelRef.safeParse(value).success,
        'use local, a tier (fast, default, complex) or provider/model (e.g. openai/text-embedding-3-small)',
      )
      .optional(),
    /**
     * Characters of memories injected before each turn by automatic recall (the most relevant ones
     * the prompt does not already hold, with provenance); 0 turns recall off (no search is made).
     * 2,000 is about 500 tokens: a handful of facts, small next to a window, cheap per turn.
     */
    recall_chars: z
      .number()
      .int()
      .min(0, { error: 'use 0 (recall off) or a number of characters, e.g. 2000' })
      .max(100_000, { error: 'at most 100000 characters: recall shares the prompt with the conversation' })
      .default(2_000),
    fast_tier: memoryFastTierSchema.prefault({}),
  })
  .strict();

export const agentSchema = z
  .object({
    role: z.string().default(''),
    model: modelRef.default('default'),
    /**
     * Models this agent's calls fail over to (provider/model, in order), before the mesh's
     * `llm.fallbacks`: an agent whose work needs a long context or a tool-capable model names its own.
     */
    fallbacks: z.array(providerModel).max(10).default([]),
    soul: z.string().default(''),
    tools: z
      .union([z.enum(TOOL_PROFILES), z.array(z.string().min(1))], {
        error: `use a profile (${TOOL_PROFILES.join(', ')}) or a list of tool names`,
      })
      .default('full'),
    budget: z
      .object({
        daily_usd: z.number().nonnegative().optional(),
        monthly_usd: z.number().nonnegative().optional(),
      })
      .strict()
      .default({}),
    permissions: permissionsSchema.prefault({}),
    cron: z.array(cronEntrySchema).default([]),
    resources: resourcesSchema.partial().optional(),
    context: contextSchema.prefault({}),
    loop: loopSchema.prefault({}),
    browser: browserSchema.prefault({}),
    memory: memorySchema.prefault({}),
    /** Skills shown to this agent (disabled names, prompt budget); see docs/tools.md. */
    skills: agentSkillsSchema.prefault({}),
    /** `on_demand` (default) or `all` tool schemas per LLM call; see skills-config.ts. */
    tool_loading: toolLoadingSchema,
    /**
     * Standing pub/sub subscriptions, made (or kept, cursor and all) at every start; each pattern
     * within `permissions.pubsub.subscribe`. `lane` (default) wakes the agent with each event.
     */
    subscriptions: z
      .array(
        z
          .object({ pattern: topicPatternSchema, delivery: z.enum(['lane', 'stream']).default('lane') })
          .strict(),
      )
      .max(20)
      .default([]),
    /** stdio MCP servers only this agent runs, inside its container (literal env only). */
    mcp: z.record(mcpServerName, mcpStdioServerSchema).default({}),
    /**
     * Tools that ask first: a call to a tool whose name matches one of these globs (`*` any run of
     * characters, so `github__*` holds every tool of the `github` MCP server) waits for the
     * operator's yes before it runs (docs/tools.md, "Tools that ask first"). None by default: the
     * operator chooses which tools are worth a person's attention.
     */
    approval: z.array(globPatternSchema).max(100).default([]),
  })
  .strict();
export type AgentConfig = DeepReadonly<z.infer<typeof agentSchema>>;
