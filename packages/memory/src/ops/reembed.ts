import { transaction } from '@openlegion/infra/sqlite';
import { OpenLegionError } from '@openlegion/protocol';
import type { MemoryContext } from '../store/memory-context.js';
import { embeddingText } from '../write/normalize-fact.js';

/**
 * Rebuild every vector with the active embedder: embed all live items first, then swap the vector
 * tables (new dimension recorded) and rebuild category centroids in one transaction, so a failed
 * embedding leaves the old index untouched.
 *
 * @throws {OpenLegionError} `MEM_EMBEDDER_UNAVAILABLE` when there is no embedder or it fails.
 */
export async function reembed(
  context: MemoryContext,
  signal?: AbortSignal,
): Promise<{ items: number; embedder: string; dimensions: number }> {
  const { embedder } = context;
  if (!embedder)
    throw new OpenLegionError('MEM_EMBEDDER_UNAVAILABLE', 'reembed needs an embedder; none is configured');
  const items = context.items.list();
  const vectors = await embedder.embed(items.map(embeddingText), signal);
  const dimensions =
    vectors[0]?.length ?? embedder.dimensions ?? (await embedder.embed(['probe'], signal))[0]?.length;
  if (!dimensions || vectors.some((vector) => vector.length !== dimensions)) {
    throw new OpenLegionError(
      'MEM_EMBEDDER_UNAVAILABLE',
      `${embedder.id} returned vectors of differing lengths`,
    );
  }
  const now = context.clock.now();
  transaction(context.db, () => {
    context.vectors.reset(embedder.id, dimensions);
    const byCategory = new Map<string, Float32Array[]>();
    items.forEach((item, index) => {
      const vector = vectors[index];
      if (!vector) return;
      context.vectors.upsert(item.id, vector, item.scope, item.category);
      const list = byCategory.get(item.category) ?? [];
      list.push(vector);
      byCategory.set(item.category, list);
    });
    for (const category of context.categories.list()) {
      context.categories.rebuildCentroid(category.name, byCategory.get(category.name) ?? [], now);
    }
  });
  return { items: items.length, embedder: embedder.id, dimensions };
}
