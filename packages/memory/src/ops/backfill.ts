import { transaction } from '@openlegion/infra/sqlite';
import { isOpenLegionError, OpenLegionError } from '@openlegion/protocol';
import { blobVector } from '../embed/embedder.js';
import type { MemoryItem } from '../model/memory-item.js';
import type { MemoryContext } from '../store/memory-context.js';
import { prepared } from '../store/statement-cache.js';
import { embeddingText } from '../write/normalize-fact.js';

/** Items per embedding call: one request to the provider, one short write transaction. */
export const DEFAULT_BACKFILL_BATCH = 64;

/** How far the active embedder's vectors are: `pending` live items still have none (or another embedder's). */
export interface EmbedProgress {
  embedder: string | null;
  total: number;
  done: number;
  pending: number;
}

/** How many live items carry a vector of the active embedder, and how many wait for one. */
export function embedProgress(context: MemoryContext): EmbedProgress {
  const total = context.items.count();
  const { embedder } = context;
  if (!embedder) return { embedder: null, total, done: 0, pending: 0 };
  const recorded = context.vectors.state();
  const done = recorded?.embedderId === embedder.id ? liveWithVectors(context) : 0;
  return { embedder: embedder.id, total, done, pending: total - done };
}

/**
 * Give every live item a vector of the active embedder, a batch at a time, so search keeps working
 * throughout (items without one are found lexically). While the store holds another embedder's
 * vectors, the first batch is embedded before anything changes; only when it succeeds are the vector
 * tables rebuilt for the new embedder and dimension. What is done stays done: after a restart the
 * next call carries on with the items still missing a vector. Category centroids are rebuilt at the end.
 *
 * @throws {OpenLegionError} `MEM_EMBEDDER_UNAVAILABLE` when the embedder fails, `MEM_EMBEDDING_MISMATCH`
 * when it answers a dimension other than the store's for the same embedder.
 */
export async function backfillVectors(
  context: MemoryContext,
  options: { batchSize?: number; signal?: AbortSignal; onBatch?: (progress: EmbedProgress) => void } = {},
): Promise<{ embedded: number }> {
  const { embedder } = context;
  if (!embedder) return { embedded: 0 };
  const batchSize = options.batchSize ?? DEFAULT_BACKFILL_BATCH;
  const status = context.embedStatus;
  if (status?.running) return { embedded: 0 };
  if (status) status.running = true;
  let embedded = 0;
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      const recorded = context.vectors.state();
      const switching = recorded?.embedderId !== embedder.id;
      const batch = switching ? context.items.list({ limit: batchSize }) : missingVectors(context, batchSize);
      if (batch.length === 0) break;
      const vectors = await embedBatch(context, batch, options.signal);
      options.signal?.throwIfAborted(); // the store may be closing: write nothing more
      const dimensions = vectors[0]?.length ?? 0;
      if (!switching && recorded && dimensions !== recorded.dimensions) {
        throw wrongDimension(embedder.id, dimensions, recorded.dimensions);
      }
      transaction(context.db, () => {
        if (switching) context.vectors.reset(embedder.id, dimensions);
        batch.forEach((item, index) => {
          const vector = vectors[index];
          // The item may have been deleted or superseded while its batch was out being embedded.
          if (vector && context.items.get(item.id)?.supersededBy === null)
            context.vectors.upsert(item.id, vector, item.scope, item.category);
        });
      });
      embedded += batch.length;
      if (status) status.error = null;
      options.onBatch?.(embedProgress(context));
    }
    if (embedded > 0) rebuildCentroids(context);
    return { embedded };
  } catch (error) {
    if (status && isOpenLegionError(error) && !options.signal?.aborted)
      status.error = { code: error.code, message: error.message, at: context.clock.now() };
    throw error;
  } finally {
    if (status) status.running = false;
  }
}

async function embedBatch(
  context: MemoryContext,
  batch: readonly MemoryItem[],
  signal: AbortSignal | undefined,
): Promise<Float32Array[]> {
  const embedder = context.embedder;
  if (!embedder) return [];
  const vectors = await embedder.embed(batch.map(embeddingText), signal);
  const dimensions = vectors[0]?.length ?? 0;
  if (vectors.length !== batch.length || vectors.some((vector) => vector.length !== dimensions)) {
    throw new OpenLegionError(
      'MEM_EMBEDDER_UNAVAILABLE',
      `${embedder.id} answered ${vectors.length} vectors of differing lengths for ${batch.length} texts`,
    );
  }
  if (embedder.dimensions !== undefined && dimensions !== embedder.dimensions) {
    throw wrongDimension(embedder.id, dimensions, embedder.dimensions);
  }
  return vectors;
}

function wrongDimension(embedderId: string, answered: number, expected: number): OpenLegionError {
  return new OpenLegionError(
    'MEM_EMBEDDING_MISMATCH',
    `${embedderId} answered ${answered}-dimension vectors where ${expected} were expected; ` +
      'search stays lexical for the items it has not embedded until the provider answers the right dimension',
    { details: { embedder: embedderId, answered, expected } },
  );
}

function missingVectors(context: MemoryContext, limit: number): MemoryItem[] {
  const ids = prepared<[number], { id: number }>(
    context.db,
    'SELECT id FROM memory_items WHERE superseded_by IS NULL AND embedding IS NULL ORDER BY id LIMIT ?',
  ).all(limit);
  return ids.flatMap(({ id }) => context.items.get(id) ?? []);
}

function liveWithVectors(context: MemoryContext): number {
  return (
    prepared<[], { n: number }>(
      context.db,
      'SELECT count(*) AS n FROM memory_items WHERE superseded_by IS NULL AND embedding IS NOT NULL',
    ).get()?.n ?? 0
  );
}

/** Category centroids from the live items' vectors, as after a full reembed. */
function rebuildCentroids(context: MemoryContext): void {
  const byCategory = new Map<string, Float32Array[]>();
  const rows = prepared<[], { category: string; embedding: Buffer }>(
    context.db,
    'SELECT category, embedding FROM memory_items WHERE superseded_by IS NULL AND embedding IS NOT NULL',
  ).all();
  for (const row of rows) {
    const list = byCategory.get(row.category) ?? [];
    list.push(blobVector(row.embedding));
    byCategory.set(row.category, list);
  }
  const now = context.clock.now();
  transaction(context.db, () => {
    for (const category of context.categories.list()) {
      context.categories.rebuildCentroid(category.name, byCategory.get(category.name) ?? [], now);
    }
  });
}
