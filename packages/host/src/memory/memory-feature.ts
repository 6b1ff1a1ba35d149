import { join } from 'node:path';
import { createLocalEmbedder, type Embedder } from '@openlegion/memory';
import { type HostFeature, serviceKey } from '../features/index.js';
import { MeshPermissions } from '../permissions/index.js';
import { writeRateOf } from '../server/index.js';
import { registerSharedMemoryRoutes } from './shared-memory-routes.js';
import { SharedMemoryStore } from './shared-memory-store.js';
import { scheduleSquadCompression } from './squad-compression.js';

/** The mesh's shared memory store (the teams feature keeps its squads' memory in it). */
export const SHARED_MEMORY = serviceKey<SharedMemoryStore>('memory.shared');

/** The store's file in `mesh.data_dir`, beside mesh.db. */
export const SHARED_MEMORY_FILE = 'shared-memory.db';

export interface MemoryFeatureOptions {
  /** Default `<data_dir>/shared-memory.db`; `:memory:` in tests. */
  file?: string;
  /**
   * Default: the local hashed-word embedder, the same as the agents' offline one. The seam for
   * embedding through the host's provider models (`llm.embedding_model`).
   */
  embedder?: Embedder;
}

/**
 * Shared memory scopes: `global` and `squad:NAME` memories kept by the host in one store per mesh,
 * read and written by agents through `/mesh/memory/...` under `permissions.memory`, and by the
 * operator through `/api/memory/...` (`openlegion memory global ...`). An agent's own scope stays
 * in its container. Squads' old episodic memory is compressed daily (squad-compression.ts).
 */
export function memoryFeature(options: MemoryFeatureOptions = {}): HostFeature {
  return {
    name: 'memory',
    provides: [SHARED_MEMORY],
    build(context) {
      const store = new SharedMemoryStore({
        file: options.file ?? join(context.dataDir, SHARED_MEMORY_FILE),
        embedder: options.embedder ?? createLocalEmbedder(),
        clock: context.clock,
        itemsPerAgent: context.config.limits.shared_memory_items_per_agent,
      });
      context.provide(SHARED_MEMORY, store);
      let stopCompression = () => {};
      return {
        routes: (app) =>
          registerSharedMemoryRoutes(app, {
            store,
            permissions: MeshPermissions.of(context.config),
            writes: writeRateOf(context),
          }),
        start() {
          store.open();
          // Squads' episodic entries older than 7 days become one line a session, daily (seed 003).
          stopCompression = scheduleSquadCompression({
            store,
            clock: context.clock,
            logger: context.logger.child({ component: 'squad-memory' }),
          });
        },
        stop() {
          stopCompression();
          store.close();
        },
      };
    },
  };
}
