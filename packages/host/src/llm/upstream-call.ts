import { type MeshConfig, OpenLegionError } from '@openlegion/protocol';
import { priceOf } from '../costs/index.js';
import { ANTHROPIC_DEFAULT_MAX_TOKENS, anthropicCall } from './anthropic/index.js';
import type { ResolvedModel } from './model-resolver.js';

/** The OpenAI-wire paths the proxy forwards. */
export type UpstreamPath = '/chat/completions' | '/embeddings';

/** The HTTP call for `target`: the Messages API for anthropic, the OpenAI wire for everyone else. */
export function upstreamCall(
  target: ResolvedModel,
  path: UpstreamPath,
  body: Record<string, unknown>,
  config: MeshConfig,
): { url: string; headers: Record<string, string>; body: string } {
  if (target.kind === 'anthropic') {
    if (path !== '/chat/completions') {
      throw new OpenLegionError(
        'LLM_MODEL_INVALID',
        `${target.model} cannot make embeddings: Anthropic has no embeddings API; set llm.embedding_model to a model of another provider (e.g. openai/text-embedding-3-small)`,
        { details: { model: target.model } },
      );
    }
    const maxTokens = priceOf(config, target.model)?.max_output_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
    return anthropicCall(target, body, maxTokens);
  }
  return {
    url: `${target.baseUrl}${path}`,
    headers: upstreamHeaders(target, body.stream === true),
    body: JSON.stringify({ ...body, model: target.upstreamModel }),
  };
}

function upstreamHeaders(target: ResolvedModel, stream: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  return headers;
}
