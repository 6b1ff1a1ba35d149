import type { SquadLayer, SquadMemoryAccess } from '@openlegion/memory';
import {
  SHARED_MEMORY_MESH_PATH,
  type SharedMemoryItem,
  sharedMemoryListAnswerSchema,
  squadMemoryScope,
} from '@openlegion/protocol';
import type { MeshClient } from '../tools/mesh/mesh-client.js';

/**
 * The host's side of a squad's memory, through `/mesh/memory/squad:NAME/...` (the squad memory
 * logic itself is the memory package's, shared with the host's fleet spawns).
 */
export function squadMemoryClient(mesh: MeshClient): SquadMemoryAccess {
  const path = (squad: string) => `${SHARED_MEMORY_MESH_PATH}/${encodeURIComponent(squadMemoryScope(squad))}`;
  return {
    async read(squad: string, traceId?: string): Promise<SharedMemoryItem[]> {
      const answer = await mesh.call({ method: 'GET', path: `${path(squad)}/items?limit=1000`, traceId });
      return sharedMemoryListAnswerSchema.parse(answer).items;
    },
    async write(squad: string, layer: SquadLayer, contents: readonly string[], traceId?: string) {
      // One POST an entry: the mesh route saves one fact a call.
      for (const content of contents)
        await mesh.call({
          method: 'POST',
          path: `${path(squad)}/items`,
          body: { content, category: layer },
          traceId,
        });
    },
  };
}
export type SquadMemoryClient = SquadMemoryAccess;
