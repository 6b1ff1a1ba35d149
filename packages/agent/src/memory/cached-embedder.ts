import { createHash } from 'node:crypto';
import type { Embedder } from '@openlegion/memory';
import { OpenLegionError } from '@openlegion/protocol';

/** Vectors kept by the agent: 4,096 × 1,536 floats is 24 MB at worst, a few MB at usual sizes. */
export const DEFAULT_EMBED_CACHE_ENTRIES = 4_096;

/**
 * `inner` behind an LRU keyed by a hash of the text: a query repeated turn after turn, or the same
 * fact saved twice, costs no call. Misses of one request go out together, in order, as one batch.
 */
export function cachedEmbedder(inner: Embedder, maxEntries = DEFAULT_EMBED_CACHE_ENTRIES): Embedder {
  // A Map iterates in insertion order: re-inserting on a hit makes its first key the least recent.
  const cache = new Map<string, Float32Array>();
  const remember = (key: string, vector: Float32Array) => {
    cache.delete(key);
    cache.set(key, vector);
    if (cache.size > maxEntries) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
  };
  return {
    id: inner.id,
    kind: inner.kind,
    get dimensions() {
      return inner.dimensions;
    },
    async embed(texts, signal) {
      const keys = texts.map(contentHash);
      // Vectors of this request, so a batch larger than the cache still answers in full.
      const found = new Map<string, Float32Array>();
      for (const key of keys) {
        const vector = cache.get(key);
        if (vector) found.set(key, vector);
      }
      const missing = [...new Set(keys.filter((key) => !found.has(key)))];
      if (missing.length > 0) {
        const textOf = new Map(keys.map((key, index) => [key, texts[index] ?? '']));
        const vectors = await inner.embed(
          missing.map((key) => textOf.get(key) ?? ''),
          signal,
        );
        missing.forEach((key, index) => {
          const vector = vectors[index];
          if (vector) found.set(key, vector);
        });
      }
      return keys.map((key) => {
        const vector = found.get(key);
        if (!vector)
          throw new OpenLegionError(
            'MEM_EMBEDDER_UNAVAILABLE',
            `${inner.id} answered fewer vectors than texts`,
          );
        remember(key, vector);
        return vector;
      });
    },
  };
}

function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
