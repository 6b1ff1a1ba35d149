import { z } from 'zod';
import { agentSchema } from './agent-config.js';
import { approvalsConfigSchema } from './approvals-config.js';
import { channelsSchema } from './channels-config.js';
import {
  providerModel,
  resourcesSchema,
  secretRef,
  slug,
  TIER_NAMES,
  type TierName,
} from './config-fields.js';
import { dashboardConfigSchema } from './dashboard-config.js';
import type { DeepReadonly } from './deep-readonly.js';
import { limitsSchema } from './limits-config.js';
import { mcpSectionSchema } from './mcp-config.js';
import { searchConfigSchema } from './search-config.js';
import { squadNameSchema } from './shared-memory-api.js';
import { telemetryConfigSchema } from './telemetry-config.js';

const runtimeSchema = z
  .object({
    kind: z.enum(['docker', 'process', 'swarm']).default('docker'),
    image: z.string().min(1).default('openlegion-agent:latest'),
    /**
     * Swarm only: a registry (`registry.example:5000`) that `openlegion start` pushes the agent
     * image to, so every node pulls the same one. Unset: each node must hold the image already,
     * which a single-node swarm does (docs/scale-out.md).
     */
    registry: z.string().min(1).optional(),
    /**
     * Swarm only: the host's own image (scripts/build-host-image.sh). The host runs in a container
     * on the agents' overlays because the host process cannot reach overlay addresses.
     */
    host_image: z.string().min(1).default('openlegion-host:latest'),
    resources: resourcesSchema.prefault({}),
    ready_timeout_ms: z.number().int().min(1_000).max(600_000).default(60_000),
    /**
     * Start the docker runtime even when the network lockdown (firewall rules on the mesh bridge)
     * cannot be installed, e.g. without root. Off: agents on an unlocked network reach every service
     * this machine binds on 0.0.0.0, so the host refuses to start (MESH_NETWORK_UNLOCKED) unless the
     * operator says so here or with `openlegion start --allow-unlocked-network`.
     */
    allow_unlocked_network: z.boolean().default(false),
  })
  .strict();

export const PROVIDER_KINDS = [
  'openai',
  'anthropic',
  'gemini',
  'groq',
  'mistral',
  'deepseek',
  'openrouter',
  'together',
  'xai',
  'ollama',
  'lmstudio',
  'openai-compatible',
  'scripted',
] as const;

const providerSchema = z
  .object({
    /** Defaults to the provider's name when that is a known kind, else openai-compatible. */
    kind: z.enum(PROVIDER_KINDS).optional(),
    base_url: z.string().url().optional(),
    api_key: secretRef.optional(),
    /** Several keys, used in turn; a key the provider refuses (401/403) is set aside for an hour. */
    api_keys: z.array(secretRef).min(1).optional(),
    /** For kind `scripted`: a testkit script file (relative to mesh.yaml). */
    script: z.string().min(1).optional(),
  })
  .strict();
export type ProviderConfig = DeepReadonly<z.infer<typeof providerSchema>>;

const llmSchema = z
  .object({
    default_model: providerModel.default('openai/gpt-4.1-mini'),
    tiers: z
      .object({
        fast: providerModel.optional(),
        default: providerModel.optional(),
        complex: providerModel.optional(),
      })
      .strict()
      .default({}),
    fallbacks: z.array(providerModel).default([]),
    fallback_strategy: z.enum(['cascade', 'round-robin']).default('cascade'),
    /** How long a provider may take before it counts as failed (and the call fails over). */
    timeouts: z
      .object({
        /** Opening a connection. */
        connect_ms: z.number().int().min(100).max(600_000).default(10_000),
        /** From sending the request to the answer's first byte (headers). */
        first_byte_ms: z.number().int().min(100).max(3_600_000).default(120_000),
      })
      .strict()
      .prefault({}),
    embedding_model: providerModel.optional(),
    /** USD per 1M tokens by provider/model; wins over the built-in table. */
    prices: z
      .record(
        providerModel,
        z
          .object({
            input: z.number().nonnegative(),
            output: z.number().nonnegative(),
            cached_input: z.number().nonnegative().optional(),
            /** The most tokens one answer may have (the reservation's upper bound when max_tokens is not given). */
            max_output_tokens: z.number().int().positive().optional(),
          })
          .strict(),
      )
      .default({}),
    providers: z
      .record(
        z.string().regex(/^[a-z0-9][a-z0-9_-]*$/i, 'provider names are letters, digits, _ and -'),
        providerSchema,
      )
      .default({}),
  })
  .strict();

const meshSectionSchema = z
  .object({
    name: slug.default('openlegion'),
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(1).max(65_535).default(8420),
    /** The egress proxy's port on the same addresses (default: port + 1). */
    egress_port: z.number().int().min(1).max(65_535).optional(),
    data_dir: z.string().min(1).default('.openlegion'),
  })
  .strict();

/** How each agent's lane queue behaves (one persisted FIFO per agent). */
const lanesSchema = z
  .object({
    /** Items waiting in one agent's lane before new ones are refused (429). */
    queue_cap: z.number().int().min(1).max(100_000).default(100),
    /** `collect` messages arriving within this window become one turn. */
    collect_debounce_ms: z.number().int().min(0).max(600_000).default(1_500),
    /** A turn that streams nothing for this long is ended as hung. */
    watchdog_ms: z.number().int().min(1_000).max(86_400_000).default(600_000),
  })
  .strict();

/** How the host watches its agents and restarts the ones that crash or hang. */
const healthSchema = z
  .object({
    /** How often each agent's `/status` is probed. */
    interval_ms: z.number().int().min(100).max(600_000).default(2_000),
    /** Failed probes in a row before the agent is restarted. */
    failures_before_restart: z.number().int().min(1).max(100).default(3),
    /** After this many restarts within an hour the agent is marked failed (`openlegion restart` recovers it). */
    max_restarts_per_hour: z.number().int().min(1).max(1_000).default(5),
  })
  .strict();

/** A template's name: a slug short enough that `NAME-xxxx` (a temporary agent's name) is one too. */
const templateName = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,33}$/, 'use lower-case letters, digits and "-", starting with a letter (max 34)');

/**
 * A template: an agent's fields, and the squad its temporary agents belong to. `squad` is a
 * template's only: an agent of mesh.yaml is not spawned, and names a squad per `spawn_subagent`.
 */
const templateSchema = agentSchema.extend({
  /**
   * The squad (seed 003) each temporary agent of this template starts with the memory of and adds
   * its lessons to, unless the spawn names another. Default none: squad memory reaches the prompt.
   */
  squad: squadNameSchema.optional(),
});
export type TemplateConfig = DeepReadonly<z.infer<typeof templateSchema>>;

/** The whole mesh.yaml (ARCHITECTURE.md §4), with defaults applied and cross-references checked. */
export const meshConfigSchema = z
  .object({
    mesh: meshSectionSchema.prefault({}),
    runtime: runtimeSchema.prefault({}),
    llm: llmSchema.prefault({}),
    agents: z.record(slug, agentSchema.prefault({})).refine((agents) => Object.keys(agents).length > 0, {
      message: 'define at least one agent',
    }),
    /**
     * Temporary agents' blueprints (an agent's fields without a name): an agent granted
     * `permissions.spawn`, or a cron entry's `spawn:`, starts one with a task (docs/mesh.md).
     */
    templates: z.record(templateName, templateSchema.prefault({})).default({}),
    channels: channelsSchema.default({}),
    lanes: lanesSchema.prefault({}),
    health: healthSchema.prefault({}),
    limits: limitsSchema.prefault({}),
    search: searchConfigSchema.prefault({}),
    mcp: mcpSectionSchema.prefault({}),
    dashboard: dashboardConfigSchema.prefault({}),
    approvals: approvalsConfigSchema.prefault({}),
    telemetry: telemetryConfigSchema.prefault({}),
    workflows: z.string().optional(),
  })
  .strict()
  // Cross-references run even when some fields failed, so one pass reports every problem.
  .superRefine((config, ctx) => checkCrossReferences(config, ctx), { when: () => true });

type IssueSink = {
  addIssue: (issue: { code: 'custom'; path: (string | number)[]; message: string }) => void;
};

/**
 * Checks that span fields: models name configured providers, permissions and channels name existing
 * agents. Reads the value defensively: fields that failed their own validation may hold anything.
 */
function checkCrossReferences(value: unknown, ctx: IssueSink): void {
  const config = asRecord(value);
  const llm = asRecord(config.llm);
  const providers = asRecord(llm.providers);
  const providerNames = Object.keys(providers);
  const agents = asRecord(config.agents);
  const agentNames = Object.keys(agents);
  const issue = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: 'custom', path, message });
  const checkProvider = (model: unknown, path: (string | number)[]) => {
    if (typeof model !== 'string' || !providerModel.safeParse(model).success) return; // reported by its own schema
    const provider = model.split('/')[0] ?? '';
    if (!providerNames.includes(provider)) {
      issue(
        path,
        `provider "${provider}" is not configured under llm.providers (have: ${providerNames.join(', ') || 'none'})`,
      );
    }
  };
  const checkAgent = (name: unknown, path: (string | number)[]) => {
    if (typeof name === 'string' && !agentNames.includes(name)) {
      issue(path, `no agent "${name}" (agents: ${agentNames.join(', ')})`);
    }
  };

  checkProvider(llm.default_model ?? 'openai/gpt-4.1-mini', ['llm', 'default_model']);
  const tiers = asRecord(llm.tiers);
  for (const tier of TIER_NAMES) checkProvider(tiers[tier], ['llm', 'tiers', tier]);
  for (const [i, model] of asArray(llm.fallbacks).entries()) checkProvider(model, ['llm', 'fallbacks', i]);
  checkProvider(llm.embedding_model, ['llm', 'embedding_model']);
  for (const [name, provider] of Object.entries(providers)) {
    const fields = asRecord(provider);
    const kind = typeof fields.kind === 'string' ? fields.kind : name;
    if (kind === 'scripted' && !fields.script)
      issue(['llm', 'providers', name, 'script'], 'a scripted provider needs script: <file>');
  }
  const templates = asRecord(config.templates);
  const templateNames = Object.keys(templates);
  for (const [at, agent] of [
    ...Object.entries(agents).map(([name, agent]) => [['agents', name], agent] as const),
    ...Object.entries(templates).map(([name, agent]) => [['templates', name], agent] as const),
  ]) {
    const fields = asRecord(agent);
    if (at[0] === 'templates' && asArray(fields.cron).length > 0)
      issue([...at, 'cron'], 'a template cannot have cron entries: its agents are temporary');
    for (const [i, entry] of asArray(fields.cron).entries()) {
      const template = asRecord(entry).spawn;
      if (typeof template === 'string' && !templateNames.includes(template))
        issue(
          [...at, 'cron', i, 'spawn'],
          `no template "${template}" under templates (have: ${templateNames.join(', ') || 'none'})`,
        );
    }
    if (!(TIER_NAMES as readonly unknown[]).includes(fields.model))
      checkProvider(fields.model, [...at, 'model']);
    for (const [i, model] of asArray(fields.fallbacks).entries())
      checkProvider(model, [...at, 'fallbacks', i]);
    const memoryEmbedder = asRecord(fields.memory).embedder;
    if (memoryEmbedder !== 'local' && !(TIER_NAMES as readonly unknown[]).includes(memoryEmbedder))
      checkProvider(memoryEmbedder, [...at, 'memory', 'embedder']);
    const browser = asRecord(fields.browser);
    if (browser.tier === 'cdp' && !browser.cdp_url) {
      issue([...at, 'browser', 'cdp_url'], 'browser tier cdp needs cdp_url: vault:NAME');
    }
    const permissions = asRecord(fields.permissions);
    for (const [i, target] of asArray(permissions.message).entries()) {
      checkAgent(target, [...at, 'permissions', 'message', i]);
    }
    checkMcpNames(at, permissions.mcp, fields.mcp);
  }
  function checkMcpNames(at: readonly string[], granted: unknown, own: unknown): void {
    const fleet = Object.keys(asRecord(asRecord(config.mcp).servers));
    for (const [i, server] of asArray(granted).entries()) {
      if (typeof server === 'string' && !fleet.includes(server))
        issue(
          [...at, 'permissions', 'mcp', i],
          `no MCP server "${server}" under mcp.servers (have: ${fleet.join(', ') || 'none'})`,
        );
    }
    for (const server of Object.keys(asRecord(own))) {
      if (asArray(granted).includes(server))
        issue(
          [...at, 'mcp', server],
          `"${server}" is both this agent's own server and a granted mcp.servers entry; rename one`,
        );
    }
  }
  // Each enabled channel needs its tokens; its default agent must exist.
  const channelTokens = { telegram: ['token'], discord: ['token'], slack: ['bot_token', 'app_token'] };
  for (const [name, tokens] of Object.entries(channelTokens)) {
    const channel = asRecord(asRecord(config.channels)[name]);
    checkAgent(channel.default_agent, ['channels', name, 'default_agent']);
    for (const token of tokens) {
      if (channel.enabled === true && !channel[token]) {
        issue(['channels', name, token], 'an enabled channel needs a token reference');
      }
    }
  }
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A validated mesh.yaml: read-only (the loader deep-freezes it too). */
export type MeshConfig = DeepReadonly<z.infer<typeof meshConfigSchema>>;
export type MeshConfigInput = z.input<typeof meshConfigSchema>;

/** The provider kind, defaulting from a well-known provider name. */
export function providerKind(name: string, provider: ProviderConfig): (typeof PROVIDER_KINDS)[number] {
  if (provider.kind) return provider.kind;
  return (PROVIDER_KINDS as readonly string[]).includes(name)
    ? (name as (typeof PROVIDER_KINDS)[number])
    : 'openai-compatible';
}

/**
 * The models a call fails over to: the agent's own `fallbacks`, then the mesh's `llm.fallbacks`
 * (each once); the mesh's alone for a caller that is no agent (the operator).
 */
export function fallbacksFor(config: MeshConfig, agent: string | undefined): string[] {
  const own = agent === undefined ? [] : (config.agents[agent]?.fallbacks ?? []);
  return [...new Set([...own, ...config.llm.fallbacks])];
}

/** Resolve an agent's `model` (a tier or provider/model) to provider/model. */
export function resolveModel(config: MeshConfig, model: string): string {
  if ((TIER_NAMES as readonly string[]).includes(model)) {
    return config.llm.tiers[model as TierName] ?? config.llm.default_model;
  }
  return model;
}

/**
 * What an agent embeds its memory with: `local`, or the provider/model its `memory.embedder` names
 * (a tier resolved), else `llm.embedding_model`, else `local` (the offline fallback).
 */
export function memoryEmbedder(config: MeshConfig, agent: string): string {
  const chosen = config.agents[agent]?.memory.embedder ?? config.llm.embedding_model ?? 'local';
  return chosen === 'local' ? 'local' : resolveModel(config, chosen);
}

/** JSON Schema of mesh.yaml (for editors and `openlegion config schema`). */
export function meshConfigJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(meshConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
