import type { Clock, Timer } from '@openlegion/infra/clock';
import { planSquadCompression } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { SharedMemoryStore } from './shared-memory-store.js';

/** How often the host compresses the squads' old episodic memory: daily, as seed 003 asks. */
export const SQUAD_COMPRESS_EVERY_MS = 86_400_000;
/** Items read of one squad per run (the store's page): a squad's log is far smaller. */
const SQUAD_ITEMS_READ = 10_000;

/**
 * One compression of every squad's episodic memory (the same as `openlegion memory squads
 * compress NAME` for each): a session older than 7 days becomes one line. The line is saved
 * before its entries are deleted, so a crash in between leaves a duplicate, never a loss.
 */
export async function compressSquads(
  store: SharedMemoryStore,
  nowMs: number,
): Promise<{ squads: number; compressed: number; lines: number }> {
  const scopes = store.scopes().filter(({ scope }) => scope.startsWith('squad:'));
  let compressed = 0;
  let lines = 0;
  for (const { scope } of scopes) {
    const { merges } = planSquadCompression(store.list(scope, SQUAD_ITEMS_READ, 0), nowMs);
    for (const merge of merges) {
      await store.save(scope, null, { content: merge.content, category: 'episodic' });
      for (const id of merge.ids) store.delete(scope, id, null);
      compressed += merge.ids.length;
      lines += 1;
    }
  }
  return { squads: scopes.length, compressed, lines };
}

/**
 * Runs {@link compressSquads} every `everyMs` on `clock` (first run one period after start, so a
 * host's start pays nothing); a failed run is logged and the next one tried. Returns the stop.
 */
export function scheduleSquadCompression(deps: {
  store: SharedMemoryStore;
  clock: Clock;
  logger: Logger;
  everyMs?: number;
}): () => void {
  const everyMs = deps.everyMs ?? SQUAD_COMPRESS_EVERY_MS;
  let timer: Timer | undefined;
  let stopped = false;
  const tick = async () => {
    try {
      const done = await compressSquads(deps.store, deps.clock.now());
      if (done.compressed > 0) deps.logger.info(done, 'squad memory compressed');
    } catch (error) {
      deps.logger.error({ err: error }, 'squad memory compression failed; trying again at the next run');
    }
    if (!stopped) timer = deps.clock.setTimeout(() => void tick(), everyMs);
  };
  timer = deps.clock.setTimeout(() => void tick(), everyMs);
  return () => {
    stopped = true;
    timer?.cancel();
  };
}
