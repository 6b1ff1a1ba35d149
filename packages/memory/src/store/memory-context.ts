import type { Clock } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import { isOpenLegionError } from '@openlegion/protocol';
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
  /** Which paths consult `llm` (extract, dedup; rerank: `request` leaves it to each search's config). */
  llmPaths?: LlmPaths;
  /**
   * `throw` (the library's default): an embedder failure or a store built by another embedder fails
   * the call. `bm25`: the call goes on without vectors (search lexical, items saved without one for
   * {@link backfillVectors} to fill later) and the failure is kept in {@link EmbedStatus}.
   */
  onEmbedderError?: 'throw' | 'bm25';
  /** What the background re-embed is doing and the last embedding failure (stats and doctor show it). */
  embedStatus?: EmbedStatus;
}

export interface LlmPaths {
  extract: boolean;
  dedup: boolean;
  rerank: 'always' | 'never' | 'request';
}

export interface EmbedStatus {
  running: boolean;
  /** The last embedding failure, cleared by the next success. */
  error: { code: string; message: string; at: number } | null;
}

/** The LLM for one path, or undefined when there is none or the path is off. */
export function llmFor(context: MemoryContext, path: 'extract' | 'dedup'): ChatLlm | undefined {
  return context.llmPaths && !context.llmPaths[path] ? undefined : context.llm;
}

/**
 * Embed `texts` with the context's embedder, checking the result against the store's recorded
 * embedder (recording it on first use). Undefined when there is no embedder (BM25-only mode).
 *
 * @throws {OpenLegionError} `MEM_EMBEDDING_MISMATCH`, `MEM_EMBEDDER_UNAVAILABLE`.
 */
export async function embedChecked(
  context: Pick<MemoryContext, 'embedder' | 'vectors' | 'onEmbedderError' | 'embedStatus' | 'clock'>,
  texts: readonly string[],
  signal?: AbortSignal,
): Promise<Float32Array[] | undefined> {
  const { embedder } = context;
  if (!embedder) return undefined;
  if (context.onEmbedderError !== 'bm25') return embedStrict(embedder, context, texts, signal);
  const recorded = context.vectors.state();
  // Vectors of another embedder wait for the background re-embed: no call whose answer could not be used.
  if (recorded && recorded.embedderId !== embedder.id) return undefined;
  try {
    const vectors = await embedStrict(embedder, context, texts, signal);
    if (context.embedStatus && texts.length > 0) context.embedStatus.error = null;
    return vectors;
  } catch (error) {
    if (signal?.aborted || !isOpenLegionError(error)) throw error;
    if (context.embedStatus)
      context.embedStatus.error = { code: error.code, message: error.message, at: context.clock.now() };
    return undefined;
  }
}

async function embedStrict(
  embedder: Embedder,
  context: Pick<MemoryContext, 'vectors'>,
  texts: readonly string[],
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  if (embedder.dimensions !== undefined) context.vectors.ensure(embedder.id, embedder.dimensions);
  if (texts.length === 0) return [];
  const vectors = await embedder.embed(texts, signal);
  for (const vector of vectors) context.vectors.ensure(embedder.id, vector.length);
  return vectors;
}
