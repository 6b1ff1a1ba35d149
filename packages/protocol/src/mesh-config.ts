import { z } from 'zod';

/** Names that become parts of container, network and volume names. */
const slug = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,39}$/, 'use lower-case letters, digits and "-", starting with a letter (max 40)');

export const TIER_NAMES = ['fast', 'default', 'complex'] as const;
export type TierName = (typeof TIER_NAMES)[number];

/** `provider/model` (litellm style); the model part may itself contain "/". */
const providerModel = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]*\/.+$/i, 'use provider/model (e.g. openai/gpt-4.1-mini)');
const modelRef = z
  .string()
  .refine(
    (value) => (TIER_NAMES as readonly string[]).includes(value) || providerModel.safeParse(value).success,
    'use a tier (fast, default, complex) or provider/model (e.g. openai/gpt-4.1-mini)',
  );

/** A secret is never written in mesh.yaml: only a reference to where the host keeps it. */
const secretRef = z
  .string()
  .regex(/^(vault|env):[A-Za-z_][A-Za-z0-9_]*$/, 'use a reference like vault:OPENAI_API_KEY, never the key itself');

const byteSize = z
  .string()
  .regex(/^\d+(\.\d+)?\s*[kmg]?b?$/i, 'use a size like 512m or 1g');

const resourcesSchema = z
  .object({
    memory: byteSize.default('512m'),
    cpus: z.number().positive().max(64).default(1),
    pids: z.number().int().min(16).max(65_536).default(256),
  })
  .strict();

const runtimeSchema = z
  .object({
    kind: z.enum(['docker', 'process']).default('docker'),
    image: z.string().min(1).default('openlegion-agent:latest'),
    resources: resourcesSchema.prefault({}),
    ready_timeout_ms: z.number().int().min(1_000).max(600_000).default(60_000),
  })
  .strict();

export const PROVIDER_KINDS = ['openai', 'anthropic', 'openai-compatible', 'ollama', 'scripted'] as const;

const providerSchema = z
  .object({
    /** Defaults to the provider's name when that is a known kind, else openai-compatible. */
    kind: z.enum(PROVIDER_KINDS).optional(),
    base_url: z.string().url().optional(),
    api_key: secretRef.optional(),
    /** For kind `scripted`: a testkit script file (relative to mesh.yaml). */
    script: z.string().min(1).optional(),
  })
  .strict();
export type ProviderConfig = z.infer<typeof providerSchema>;

const llmSchema = z
  .object({
    default_model: providerModel.default('openai/gpt-4.1-mini'),
    tiers: z
      .object({ fast: providerModel.optional(), default: providerModel.optional(), complex: providerModel.optional() })
      .strict()
      .default({}),
    fallbacks: z.array(providerModel).default([]),
    fallback_strategy: z.enum(['cascade', 'round-robin']).default('cascade'),
    embedding_model: providerModel.optional(),
    providers: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/i, 'provider names are letters, digits, _ and -'), providerSchema).default({}),
  })
  .strict();

const globList = z.array(z.string().min(1)).default([]);

const permissionsSchema = z
  .object({
    blackboard: z.object({ read: globList, write: globList }).strict().prefault({}),
    pubsub: z.object({ publish: globList, subscribe: globList }).strict().prefault({}),
    message: z.array(z.string()).default([]),
    credentials: z.array(z.string()).default([]),
    egress: globList,
  })
  .strict();

const cronEntrySchema = z
  .object({
    schedule: z.string().min(1),
    message: z.string().optional(),
    heartbeat: z.boolean().default(false),
  })
  .strict();

export const TOOL_PROFILES = ['minimal', 'coding', 'messaging', 'full'] as const;

const agentSchema = z
  .object({
    role: z.string().default(''),
    model: modelRef.default('default'),
    soul: z.string().default(''),
    tools: z.union([z.enum(TOOL_PROFILES), z.array(z.string().min(1))]).default('full'),
    budget: z
      .object({ daily_usd: z.number().nonnegative().optional(), monthly_usd: z.number().nonnegative().optional() })
      .strict()
      .default({}),
    permissions: permissionsSchema.prefault({}),
    cron: z.array(cronEntrySchema).default([]),
    resources: resourcesSchema.partial().optional(),
  })
  .strict();
export type AgentConfig = z.infer<typeof agentSchema>;

const channelsSchema = z
  .object({
    telegram: z
      .object({
        enabled: z.boolean().default(false),
        token: secretRef.optional(),
        default_agent: z.string().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const meshSectionSchema = z
  .object({
    name: slug.default('openlegion'),
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(1).max(65_535).default(8420),
    data_dir: z.string().min(1).default('.openlegion'),
  })
  .strict();

/** The whole mesh.yaml (ARCHITECTURE.md §4), with defaults applied and cross-references checked. */
export const meshConfigSchema = z
  .object({
    mesh: meshSectionSchema.prefault({}),
    runtime: runtimeSchema.prefault({}),
    llm: llmSchema.prefault({}),
    agents: z.record(slug, agentSchema.prefault({})).refine((agents) => Object.keys(agents).length > 0, {
      message: 'define at least one agent',
    }),
    channels: channelsSchema.default({}),
    workflows: z.string().optional(),
  })
  .strict()
  .superRefine((config, ctx) => {
    const providers = new Set(Object.keys(config.llm.providers));
    const checkProvider = (model: string, path: (string | number)[]) => {
      const provider = model.split('/')[0] ?? '';
      if (!providers.has(provider)) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: `provider "${provider}" is not configured under llm.providers (have: ${[...providers].join(', ') || 'none'})`,
        });
      }
    };
    checkProvider(config.llm.default_model, ['llm', 'default_model']);
    for (const tier of TIER_NAMES) {
      const model = config.llm.tiers[tier];
      if (model) checkProvider(model, ['llm', 'tiers', tier]);
    }
    config.llm.fallbacks.forEach((model, i) => checkProvider(model, ['llm', 'fallbacks', i]));
    if (config.llm.embedding_model) checkProvider(config.llm.embedding_model, ['llm', 'embedding_model']);
    for (const [name, provider] of Object.entries(config.llm.providers)) {
      if (providerKind(name, provider) === 'scripted' && !provider.script) {
        ctx.addIssue({ code: 'custom', path: ['llm', 'providers', name, 'script'], message: 'a scripted provider needs script: <file>' });
      }
    }
    const agentNames = Object.keys(config.agents);
    for (const [name, agent] of Object.entries(config.agents)) {
      if (!(TIER_NAMES as readonly string[]).includes(agent.model)) checkProvider(agent.model, ['agents', name, 'model']);
      agent.permissions.message.forEach((target, i) => {
        if (!agentNames.includes(target)) {
          ctx.addIssue({
            code: 'custom',
            path: ['agents', name, 'permissions', 'message', i],
            message: `no agent "${target}" (agents: ${agentNames.join(', ')})`,
          });
        }
      });
    }
    const telegram = config.channels.telegram;
    if (telegram?.default_agent && !agentNames.includes(telegram.default_agent)) {
      ctx.addIssue({
        code: 'custom',
        path: ['channels', 'telegram', 'default_agent'],
        message: `no agent "${telegram.default_agent}" (agents: ${agentNames.join(', ')})`,
      });
    }
    if (telegram?.enabled && !telegram.token) {
      ctx.addIssue({ code: 'custom', path: ['channels', 'telegram', 'token'], message: 'an enabled channel needs a token reference' });
    }
  });

export type MeshConfig = z.infer<typeof meshConfigSchema>;
export type MeshConfigInput = z.input<typeof meshConfigSchema>;

/** The provider kind, defaulting from a well-known provider name. */
export function providerKind(name: string, provider: ProviderConfig): (typeof PROVIDER_KINDS)[number] {
  if (provider.kind) return provider.kind;
  return (PROVIDER_KINDS as readonly string[]).includes(name)
    ? (name as (typeof PROVIDER_KINDS)[number])
    : 'openai-compatible';
}

/** Resolve an agent's `model` (a tier or provider/model) to provider/model. */
export function resolveModel(config: MeshConfig, model: string): string {
  if ((TIER_NAMES as readonly string[]).includes(model)) {
    return config.llm.tiers[model as TierName] ?? config.llm.default_model;
  }
  return model;
}

/** JSON Schema of mesh.yaml (for editors and `openlegion config schema`). */
export function meshConfigJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(meshConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
