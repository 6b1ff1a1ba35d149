import {
  fallbacksFor,
  type MeshConfig,
  memoryEmbedder,
  OpenLegionError,
  resolveModel,
  TIER_NAMES,
} from '@openlegion/protocol';

/**
 * The models an agent may call (`provider/model`, after tier resolution): its own, every tier, the
 * default, the fallbacks and the embedding model. Anything else is someone else's spend.
 */
export function allowedModels(config: MeshConfig, agent: string): Set<string> {
  const own = config.agents[agent]?.model;
  const models = [
    ...(own ? [resolveModel(config, own)] : []),
    config.llm.default_model,
    ...TIER_NAMES.map((tier) => resolveModel(config, tier)),
    ...fallbacksFor(config, agent),
    ...(config.llm.embedding_model ? [config.llm.embedding_model] : []),
    // The agent's own memory embedder, when it names one (agents.NAME.memory.embedder).
    ...(own !== undefined && memoryEmbedder(config, agent) !== 'local'
      ? [memoryEmbedder(config, agent)]
      : []),
  ];
  return new Set(models);
}

/** Throws 403 LLM_MODEL_FORBIDDEN naming what `agent` may call, unless `model` is among them. The operator may call any. */
export function requireModelAccess(config: MeshConfig, agent: string | undefined, model: string): void {
  if (agent === undefined) return;
  const allowed = allowedModelsOf(config, agent);
  if (allowed.has(model)) return;
  throw new OpenLegionError(
    'LLM_MODEL_FORBIDDEN',
    `agent "${agent}" may not call ${model}: it may call ${[...allowed].join(', ')} (its model, the tiers, the fallbacks and the embedding model in mesh.yaml)`,
    { details: { agent, model, allowed: [...allowed] } },
  );
}

/** Each config's allowed models by agent, worked out once: the config does not change under a running host. */
const allowedByConfig = new WeakMap<MeshConfig, Map<string, Set<string>>>();

function allowedModelsOf(config: MeshConfig, agent: string): Set<string> {
  let byAgent = allowedByConfig.get(config);
  if (!byAgent) {
    byAgent = new Map();
    allowedByConfig.set(config, byAgent);
  }
  let allowed = byAgent.get(agent);
  if (!allowed) {
    allowed = allowedModels(config, agent);
    byAgent.set(agent, allowed);
  }
  return allowed;
}
