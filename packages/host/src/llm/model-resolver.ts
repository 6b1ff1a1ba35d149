import {
  type MeshConfig,
  OpenLegionError,
  type PROVIDER_KINDS,
  providerKind,
  resolveModel,
  TIER_NAMES,
} from '@openlegion/protocol';
import { requireSecret, type SecretSource } from '../secrets/index.js';

export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** Where and how one model is called upstream. */
export interface ResolvedModel {
  /** The configured provider name (the part before the first "/"). */
  provider: string;
  kind: ProviderKind;
  /** `provider/model` after tier resolution. */
  model: string;
  /** The OpenAI-compatible base URL, without a trailing "/". */
  baseUrl: string;
  apiKey?: string;
  /** The reference (`vault:NAME`) the key came from, so a refused key can be set aside. */
  keyRef?: string;
  /** The model name the provider knows (no provider prefix). */
  upstreamModel: string;
}

/** OpenAI-compatible endpoints of the providers that have a well-known one. */
const DEFAULT_BASE_URLS: Partial<Record<ProviderKind, string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  gemini: 'https://generativelanguage.googleapis.com/v1beta/openai',
  groq: 'https://api.groq.com/openai/v1',
  mistral: 'https://api.mistral.ai/v1',
  deepseek: 'https://api.deepseek.com/v1',
  openrouter: 'https://openrouter.ai/api/v1',
  together: 'https://api.together.xyz/v1',
  xai: 'https://api.x.ai/v1',
  ollama: 'http://127.0.0.1:11434/v1',
  lmstudio: 'http://127.0.0.1:1234/v1',
};

/** Hosted providers: a call without a key is refused up front with the fix. */
const KEY_REQUIRED_KINDS: ReadonlySet<ProviderKind> = new Set([
  'openai',
  'anthropic',
  'gemini',
  'groq',
  'mistral',
  'deepseek',
  'openrouter',
  'together',
  'xai',
]);

const PROVIDER_MODEL = /^([a-z0-9][a-z0-9_-]*)\/(.+)$/i;

export interface ModelResolverOptions {
  config: MeshConfig;
  /** Where `vault:NAME` and `env:NAME` key references are looked up. */
  secrets: SecretSource;
  /** Base URLs that win over mesh.yaml, by provider name (the fake LLM a scripted provider runs). */
  baseUrlOverrides?: Record<string, string>;
  /** Chooses among a provider's `api_keys` (the key ring); the first when absent. */
  pickKey?: (provider: string, references: readonly string[]) => string | undefined;
}

/**
 * Resolve a tier (`fast`, `default`, `complex`) or `provider/model` to its upstream call.
 * Throws LLM_MODEL_INVALID, LLM_PROVIDER_UNKNOWN, LLM_PROVIDER_KEY_MISSING or CONFIG_INVALID.
 */
export function resolveUpstreamModel(options: ModelResolverOptions, model: string): ResolvedModel {
  const { config } = options;
  const qualified = resolveModel(config, model);
  const match = PROVIDER_MODEL.exec(qualified);
  const provider = match?.[1];
  const upstreamModel = match?.[2];
  if (!provider || !upstreamModel) {
    throw new OpenLegionError(
      'LLM_MODEL_INVALID',
      `model "${model}" is neither a tier (${TIER_NAMES.join(', ')}) nor provider/model (e.g. openai/gpt-4.1-mini)`,
      { details: { model } },
    );
  }
  const providerConfig = config.llm.providers[provider];
  if (!providerConfig) {
    const configured = Object.keys(config.llm.providers).sort();
    throw new OpenLegionError(
      'LLM_PROVIDER_UNKNOWN',
      `provider "${provider}" is not configured under llm.providers (configured: ${configured.join(', ') || 'none'})`,
      { details: { provider, configured } },
    );
  }
  const kind = providerKind(provider, providerConfig);
  const baseUrl = options.baseUrlOverrides?.[provider] ?? providerConfig.base_url ?? DEFAULT_BASE_URLS[kind];
  if (!baseUrl) {
    const reason =
      kind === 'scripted'
        ? 'its fake LLM is not running'
        : `set llm.providers.${provider}.base_url in mesh.yaml`;
    throw new OpenLegionError(
      'CONFIG_INVALID',
      `provider "${provider}" (${kind}) has no base URL: ${reason}`,
      {
        details: { provider, kind },
      },
    );
  }
  const references = providerConfig.api_keys ?? (providerConfig.api_key ? [providerConfig.api_key] : []);
  const keyRef =
    references.length > 1 ? (options.pickKey?.(provider, references) ?? references[0]) : references[0];
  const apiKey = readApiKey(provider, kind, keyRef, options.secrets);
  const resolved: ResolvedModel = {
    provider,
    kind,
    model: qualified,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    upstreamModel,
  };
  if (apiKey !== undefined) resolved.apiKey = apiKey;
  if (keyRef !== undefined) resolved.keyRef = keyRef;
  return resolved;
}

/** The key a `vault:NAME` / `env:NAME` reference points at; errors name the variable, never a value. */
function readApiKey(
  provider: string,
  kind: ProviderKind,
  reference: string | undefined,
  secrets: SecretSource,
): string | undefined {
  if (reference === undefined) {
    if (!KEY_REQUIRED_KINDS.has(kind)) return undefined;
    const suggested = `${provider.toUpperCase().replace(/-/g, '_')}_API_KEY`;
    throw new OpenLegionError(
      'LLM_PROVIDER_KEY_MISSING',
      `provider "${provider}" needs a key: set llm.providers.${provider}.api_key: vault:${suggested}`,
      { details: { provider } },
    );
  }
  return requireSecret(
    secrets,
    reference,
    (hint) =>
      new OpenLegionError(
        'LLM_PROVIDER_KEY_MISSING',
        `the key of provider "${provider}" is not set: ${hint}`,
        {
          details: { provider, reference },
        },
      ),
  );
}
