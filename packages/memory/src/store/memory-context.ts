import type { Clock } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import type { Embedder } from '../embed/embedder.js';
import type { ChatLlm } from '../llm/chat-llm.js';
import type { CategoryStore } from './category-store.js';
import type { ItemRepository } from './item-repository.js';
import type { VectorIndex } from './vector-index.js';

/** What the engine's parts share: one database with its tables, an optional embedder and LLM, a clock. */
export interface MemoryContext {
  db: Database;
  items: ItemRepository;
  vectors: VectorIndex;
  categories: CategoryStore;
  embedder: Embedder | undefined;
  llm: ChatLlm | undefined;
  clock: Clock;
}

/**
 * Embed `texts` with the context's embedder, checking the result against the store's recorded
 * embedder (recording it on first use). Undefined when there is no embedder (BM25-only mode).
 *
 * @throws {OpenLegionError} `MEM_EMBEDDING_MISMATCH`, `MEM_EMBEDDER_UNAVAILABLE`.
 */
export async function embedChecked(
  context: Pick<MemoryContext, 'embedder' | 'vectors'>,
  texts: readonly string[],
  signal?: AbortSignal,
): Promise<Float32Array[] | undefined> {
  const { embedder } = context;
  if (!embedder) return undefined;
  if (embedder.dimensions !== undefined) context.vectors.ensure(embedder.id, embedder.dimensions);
  if (texts.length === 0) return [];
  const vectors = await embedder.embed(texts, signal);
  for (const vector of vectors) context.vectors.ensure(embedder.id, vector.length);
  return vectors;
}
