import { estimateTokens } from './completion-plan.js';
import type { EmbeddingsRequest } from './openai-request.js';

export const DEFAULT_EMBEDDING_DIMENSIONS = 64;

/** FNV-1a, 32-bit: cheap, stable across runs and platforms. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * A deterministic, L2-normalised vector from hashed character trigrams of the lower-cased text,
 * so texts sharing words land near each other.
 */
export function embedText(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const padded = ` ${text.toLowerCase()} `;
  for (let i = 0; i + 3 <= padded.length; i++) {
    const hash = fnv1a(padded.slice(i, i + 3));
    const slot = hash % dimensions;
    vector[slot] = (vector[slot] ?? 0) + (hash & 0x80000000 ? -1 : 1);
  }
  const norm = Math.hypot(...vector);
  // Text too short for a trigram (or whose trigrams cancel) still gets a unit vector.
  if (norm === 0) {
    vector[fnv1a(text) % dimensions] = 1;
    return vector;
  }
  return vector.map((value) => value / norm);
}

function toBase64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

/** One text per embedding asked for. Token-id inputs are embedded by their decimal text. */
function inputTexts(input: EmbeddingsRequest['input']): string[] {
  if (typeof input === 'string') return [input];
  if (input.every((item) => typeof item === 'number')) return [input.join(' ')];
  return input.map((item) => (Array.isArray(item) ? item.join(' ') : String(item)));
}

/** The OpenAI `/v1/embeddings` response body for a request. */
export function toEmbeddingsResponse(request: EmbeddingsRequest): Record<string, unknown> {
  const dimensions = request.dimensions ?? DEFAULT_EMBEDDING_DIMENSIONS;
  const texts = inputTexts(request.input);
  const promptTokens = texts.reduce((sum, text) => sum + estimateTokens(text), 0);
  return {
    object: 'list',
    data: texts.map((text, index) => {
      const vector = embedText(text, dimensions);
      return {
        object: 'embedding',
        index,
        embedding: request.encoding_format === 'base64' ? toBase64(vector) : vector,
      };
    }),
    model: request.model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
