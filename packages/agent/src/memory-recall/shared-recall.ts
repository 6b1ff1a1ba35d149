import { SHARED_MEMORY_MESH_PATH, sharedMemorySearchAnswerSchema } from '@openlegion/protocol';
import type { MeshClient } from '../tools/mesh/mesh-client.js';
import type { RecallItem } from './recall-block.js';

/**
 * Recall reads the shared scopes too: each search is one host call on the turn's path, so it is
 * short. A slow host costs the turn at most this, then the turn goes on with the agent's own memory.
 */
export const SHARED_RECALL_TIMEOUT_MS = 1_500;

/** The shared scopes (`global`, `squad:NAME`) recall searches, through the host. */
export interface SharedRecallSource {
  /** `/mesh/self` `memory.shared_scopes`: the scopes this agent may read, by name. */
  readonly scopes: readonly string[];
  search(scope: string, query: string, limit: number, traceId?: string): Promise<RecallItem[]>;
}

/** A {@link SharedRecallSource} over the host's `/mesh/memory/SCOPE/search`. */
export function meshSharedRecall(mesh: MeshClient, scopes: readonly string[]): SharedRecallSource {
  return {
    scopes,
    async search(scope, query, limit, traceId) {
      const answer = sharedMemorySearchAnswerSchema.parse(
        await mesh.call({
          method: 'POST',
          path: `${SHARED_MEMORY_MESH_PATH}/${encodeURIComponent(scope)}/search`,
          body: { query, limit },
          timeoutMs: SHARED_RECALL_TIMEOUT_MS,
          ...(traceId !== undefined ? { traceId } : {}),
        }),
      );
      return answer.hits.map(({ item }) => ({
        id: item.id,
        scope: item.scope,
        category: item.category,
        content: item.content,
        updatedAt: item.updated_at,
        // Shared items are written through memory_save or by the operator; the writer is the reference.
        source: 'tool' as const,
        sourceRef: item.writer,
        hostShared: true,
      }));
    },
  };
}

/**
 * One ranking from several: the best of each list, then the second of each, and so on (the agent's
 * own first in each round). Scores from different stores and embedders are not comparable; ranks
 * are (reciprocal-rank fusion with equal weights orders exactly like this).
 */
export function interleave<T>(lists: readonly (readonly T[])[]): T[] {
  const merged: T[] = [];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let rank = 0; rank < longest; rank += 1) {
    for (const list of lists) {
      const item = list[rank];
      if (item !== undefined) merged.push(item);
    }
  }
  return merged;
}
