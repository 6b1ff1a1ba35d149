/**
 * Turns texts into vectors. Implementations: {@link createLocalEmbedder} (offline, deterministic) and
 * {@link createOpenAiEmbedder} (an OpenAI-compatible `/v1/embeddings`, e.g. the host's proxy).
 */
export interface Embedder {
  /** Names the model and its settings; a store remembers it and refuses vectors of another embedder. */
  readonly id: string;
  /** `local` runs in process; `remote` calls a service. */
  readonly kind: 'local' | 'remote';
  /** Vector length when known up front; a remote embedder may learn it from its first answer. */
  readonly dimensions: number | undefined;
  /** One unit-length vector per text, in order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** Scale `vector` to unit length in place (a zero vector stays zero) and return it. */
export function normalizeInPlace(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] ?? 0) / norm;
  return vector;
}

/** Cosine similarity of two unit vectors (their dot product). */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

/** The little-endian float32 bytes sqlite-vec reads. */
export function vectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/**
 * A float32 vector from the bytes sqlite-vec stores. better-sqlite3 hands every row its own buffer,
 * so the bytes are viewed in place when aligned to 4 and copied only when they are not.
 */
export function blobVector(blob: Buffer): Float32Array {
  if (blob.byteOffset % 4 === 0) {
    return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  }
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}
