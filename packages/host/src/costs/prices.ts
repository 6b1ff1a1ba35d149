import type { MeshConfig } from '@openlegion/protocol';

/** USD per 1M tokens, and the most tokens one answer may have. */
export interface ModelPrice {
  input: number;
  output: number;
  cached_input?: number | undefined;
  max_output_tokens?: number | undefined;
}

/**
 * Public list prices (USD per 1M tokens) of common models, as the providers publish them; mesh.yaml
 * `llm.prices` wins (and covers any other model). Keyed by the model name without its provider.
 */
const BUILT_IN: Record<string, ModelPrice> = {
  'gpt-4.1': { input: 2, output: 8, cached_input: 0.5, max_output_tokens: 32_768 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cached_input: 0.1, max_output_tokens: 32_768 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cached_input: 0.025, max_output_tokens: 32_768 },
  'gpt-4o': { input: 2.5, output: 10, cached_input: 1.25, max_output_tokens: 16_384 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cached_input: 0.075, max_output_tokens: 16_384 },
  'claude-opus-4-1': { input: 15, output: 75, cached_input: 1.5, max_output_tokens: 32_000 },
  'claude-sonnet-4-5': { input: 3, output: 15, cached_input: 0.3, max_output_tokens: 64_000 },
  'claude-haiku-4-5': { input: 1, output: 5, cached_input: 0.1, max_output_tokens: 64_000 },
  'text-embedding-3-small': { input: 0.02, output: 0 },
  'text-embedding-3-large': { input: 0.13, output: 0 },
};

/** When neither the request nor the price table bounds an answer. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 16_384;

/** The price of `model` (`provider/name`), or undefined when nobody knows it (it then costs 0, with a warning). */
export function priceOf(config: MeshConfig, model: string): ModelPrice | undefined {
  const configured = config.llm.prices[model];
  if (configured) return configured;
  const name = model.slice(model.indexOf('/') + 1);
  return BUILT_IN[name];
}

/** What tokens cost at `price`. Cached prompt tokens are part of `prompt` and billed at the cached rate. */
export function costOf(
  price: ModelPrice | undefined,
  usage: { prompt: number; completion: number; cached?: number },
): number {
  if (!price) return 0;
  const cached = Math.min(usage.cached ?? 0, usage.prompt);
  const fresh = usage.prompt - cached;
  return (
    (fresh * price.input + cached * (price.cached_input ?? price.input) + usage.completion * price.output) /
    1e6
  );
}
