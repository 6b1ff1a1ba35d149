import type { MemoryEngine } from '@openlegion/memory';
import type { Logger } from 'pino';

/** Waits after a failed re-embed (provider down, wrong dimension): soon at first, then every 10 minutes. */
export const DEFAULT_BACKFILL_RETRY_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000];
/** How often a healthy agent looks for items saved without a vector (a count query when memory is open). */
export const DEFAULT_BACKFILL_CHECK_MS = 60_000;

export interface MemoryBackfill {
  /** Look now (after start, or a save that may have left items without vectors). */
  kick(): void;
  close(): void;
}

/**
 * Keeps the agent's memory embedded in the background: after the embedder changed, a restart
 * mid-way, or saves made while the provider was down. Runs only on an open engine (`opened`), one
 * pass at a time; a failure is logged once per streak and retried with backoff, while search keeps
 * working lexically for the items not yet embedded.
 */
export function startMemoryBackfill(deps: {
  opened: () => MemoryEngine | undefined;
  logger: Logger;
  retryMs?: readonly number[];
  checkMs?: number;
}): MemoryBackfill {
  const retryMs = deps.retryMs ?? DEFAULT_BACKFILL_RETRY_MS;
  const checkMs = deps.checkMs ?? DEFAULT_BACKFILL_CHECK_MS;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let failures = 0;

  const schedule = (ms: number) => {
    if (abort.signal.aborted) return;
    clearTimeout(timer);
    timer = setTimeout(run, ms);
    timer.unref(); // never what keeps a stopping agent alive
  };

  const run = async () => {
    const engine = deps.opened();
    if (running || !engine) return schedule(checkMs);
    if (engine.embedProgress().pending === 0) return schedule(checkMs);
    running = true;
    try {
      const { embedded } = await engine.backfill({ signal: abort.signal });
      if (embedded > 0) deps.logger.info({ embedded, ...engine.embedProgress() }, 'memory re-embedded');
      failures = 0;
      schedule(checkMs);
    } catch (error) {
      if (abort.signal.aborted) return;
      if (failures === 0)
        deps.logger.warn(
          { err: error },
          'memory re-embed failed; search stays lexical for items without vectors',
        );
      const wait = retryMs[Math.min(failures, retryMs.length - 1)] ?? checkMs;
      failures++;
      schedule(wait);
    } finally {
      running = false;
    }
  };

  return {
    kick: () => schedule(0),
    close: () => {
      abort.abort();
      clearTimeout(timer);
    },
  };
}
