import { OpenLegionError } from '@openlegion/protocol';
import { z } from 'zod';
import type { Embedder } from './embedder.js';
import { normalizeInPlace } from './embedder.js';

const DEFAULT_TIMEOUT_MS = 30_000;
/** Inputs per request; providers cap batch sizes (OpenAI: 2048). */
const BATCH_SIZE = 256;

const embeddingsResponse = z.object({
  data: z.array(z.object({ index: z.number().int(), embedding: z.array(z.number()) })),
});

export interface OpenAiEmbedderOptions {
  /** Base URL ending in `/v1`, e.g. `MESH_URL + '/v1'` (the host's proxy). */
  baseUrl: string;
  /** Bearer token (the agent's mesh token when going through the host). */
  token: string;
  model: string;
  /** Ask the model for this many dimensions (text-embedding-3 models support it). */
  dimensions?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * An embedder calling an OpenAI-compatible `POST /embeddings`.
 *
 * @throws {OpenLegionError} `MEM_EMBEDDER_UNAVAILABLE` (retryable) when the service cannot be reached,
 * answers with an error, or answers with something that is not an embeddings list.
 */
export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const doFetch = options.fetch ?? fetch;
  const embedBatch = async (texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> => {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const body: Record<string, unknown> = { model: options.model, input: texts, encoding_format: 'float' };
    if (options.dimensions !== undefined) body.dimensions = options.dimensions;
    let response: Response;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.token}` },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      throw unavailable(
        `cannot reach ${url}: ${error instanceof Error ? error.message : String(error)}`,
        error,
      );
    }
    if (!response.ok) {
      const detail = (await response.text().catch(() => '')).slice(0, 300);
      throw unavailable(`${url} answered ${response.status}: ${detail}`);
    }
    const parsed = embeddingsResponse.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success || parsed.data.data.length !== texts.length) {
      throw unavailable(`${url} did not answer with ${texts.length} embeddings`);
    }
    return [...parsed.data.data]
      .sort((a, b) => a.index - b.index)
      .map((item) => normalizeInPlace(Float32Array.from(item.embedding)));
  };
  return {
    id: `openai:${options.model}${options.dimensions ? `:${options.dimensions}` : ''}`,
    kind: 'remote',
    dimensions: options.dimensions,
    async embed(texts, signal) {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += BATCH_SIZE) {
        vectors.push(...(await embedBatch(texts.slice(start, start + BATCH_SIZE), signal)));
      }
      return vectors;
    },
  };
}

function unavailable(message: string, cause?: unknown): OpenLegionError {
  return new OpenLegionError('MEM_EMBEDDER_UNAVAILABLE', message, { cause });
}
