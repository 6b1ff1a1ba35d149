import { type MeshConfig, resolveModel, TIER_NAMES } from '@openlegion/protocol';

/** One entry of `GET /v1/models`, in OpenAI's shape. */
export interface ModelListEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

export interface ModelList {
  object: 'list';
  data: ModelListEntry[];
}

/** The tiers and every model mesh.yaml names, each once. */
export function listConfiguredModels(config: MeshConfig): ModelList {
  const ids = new Set<string>(TIER_NAMES);
  const models = [
    config.llm.default_model,
    ...TIER_NAMES.map((tier) => resolveModel(config, tier)),
    ...config.llm.fallbacks,
    ...Object.values(config.agents).flatMap((agent) => agent.fallbacks),
    ...(config.llm.embedding_model ? [config.llm.embedding_model] : []),
    ...Object.values(config.agents).map((agent) => resolveModel(config, agent.model)),
  ];
  for (const model of models) ids.add(model);
  const data = [...ids].map((id) => ({
    id,
    object: 'model' as const,
    created: 0,
    owned_by: ownerOf(config, id),
  }));
  return { object: 'list', data };
}

function ownerOf(config: MeshConfig, id: string): string {
  const qualified = resolveModel(config, id);
  return qualified.split('/')[0] ?? 'openlegion';
}
