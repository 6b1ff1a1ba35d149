/** The window of a model nobody told us about: small enough that any current model holds it. */
export const DEFAULT_CONTEXT_WINDOW_TOKENS = 32_768;

/**
 * Input windows by model family, first match wins (more specific patterns first). Matched against
 * the model's own name: the last segment of `provider/model` (so `openrouter/openai/gpt-4o` is
 * `gpt-4o`), lower-cased, with an Ollama tag (`llama3.1:8b`) kept. Where a provider caps input
 * below the advertised window (gpt-5: 400k with 128k reserved for output), the input cap is used.
 */
const CONTEXT_WINDOWS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 272_000],
  [/^(gpt-4o|chatgpt-4o|gpt-4-turbo|gpt-4-(0125|1106)-preview|gpt-4\.5)/, 128_000],
  [/^gpt-4-32k/, 32_768],
  [/^gpt-4(-|$)/, 8_192],
  [/^gpt-3\.5-turbo/, 16_385],
  [/^(o1-mini|o1-preview)/, 128_000],
  [/^o[134](-|$)/, 200_000],
  [/^gpt-oss/, 131_072],
  [/^claude/, 200_000],
  [/^gemini-1\.5-pro/, 2_097_152],
  [/^gemini-(1\.5|2|3)/, 1_048_576],
  [/^gemini/, 32_768],
  [/^(llama-?3\.[1-9]|llama-?4|meta-llama-3\.[1-9])/, 131_072],
  [/^(llama-?3|meta-llama-3)/, 8_192],
  [/^llama-?2/, 4_096],
  [/^codestral/, 256_000],
  [/^(open-)?mixtral-8x22b/, 65_536],
  [/^(open-)?mixtral/, 32_768],
  [/^(open-)?mistral-7b/, 32_768],
  [/^(mistral-(large|medium|small)|magistral|ministral|pixtral|open-mistral-nemo|mistral-nemo)/, 131_072],
  [/^mistral/, 32_768],
  [/^deepseek/, 131_072],
  [/^(qwen2\.5|qwen3|qwq)/, 131_072],
  [/^qwen/, 32_768],
  [/^grok-4/, 256_000],
  [/^grok/, 131_072],
  [/^command-r/, 128_000],
  [/^command-a/, 256_000],
  [/^phi-?4/, 16_384],
  [/^phi-?3/, 131_072],
  [/^(kimi|moonshot)/, 131_072],
];

/** A model's own name, without the provider path: `openrouter/openai/gpt-4o` → `gpt-4o`. */
export function modelBaseName(model: string): string {
  return (model.split('/').at(-1) ?? model).trim().toLowerCase();
}

/**
 * How many tokens the model's prompt may hold: the mesh.yaml `window_tokens` override when given,
 * else the table of known families, else {@link DEFAULT_CONTEXT_WINDOW_TOKENS}.
 */
export function contextWindowFor(model: string, overrideTokens?: number): number {
  if (overrideTokens !== undefined) return overrideTokens;
  const name = modelBaseName(model);
  for (const [pattern, tokens] of CONTEXT_WINDOWS) if (pattern.test(name)) return tokens;
  return DEFAULT_CONTEXT_WINDOW_TOKENS;
}
