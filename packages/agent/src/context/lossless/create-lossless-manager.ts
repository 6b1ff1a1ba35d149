import type { Clock } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import type { Logger } from 'pino';
import type { ContextManager } from '../context-manager.js';
import type { ContextServices, ContextSettings } from '../context-services.js';
import type { FastTierCall } from '../fast-tier.js';
import type { TokenCounter } from '../token-counter.js';
import { LosslessContexts } from './lossless-contexts.js';
import { LOSSLESS_DEFAULTS, type LosslessSettings } from './lossless-settings.js';
import { SummaryStore } from './summary-store.js';

/** A context manager for the `lossless` strategy; calls for one conversation run one at a time. */
export function createLosslessManager(deps: {
  db: Database;
  settings: ContextSettings;
  lossless?: Partial<LosslessSettings> | undefined;
  call: FastTierCall;
  counter: TokenCounter;
  clock: Clock;
  logger: Logger;
  /** The flush's services: spans are read for facts before they are summarised. */
  flush?: ContextServices | undefined;
}): ContextManager {
  const contexts = new LosslessContexts(
    {
      settings: deps.settings,
      ...(deps.flush ? { flush: deps.flush } : {}),
      lossless: { ...LOSSLESS_DEFAULTS, ...deps.lossless },
      call: deps.call,
      store: new SummaryStore(deps.db, deps.logger),
      clock: deps.clock,
      logger: deps.logger,
    },
    deps.counter,
  );
  const queues = new Map<string, Promise<unknown>>();
  const serial = <T>(conversationId: string, work: () => Promise<T>): Promise<T> => {
    const next = (queues.get(conversationId) ?? Promise.resolve()).then(work, work);
    const settled = next.catch(() => undefined);
    queues.set(conversationId, settled);
    void settled.then(() => {
      if (queues.get(conversationId) === settled) queues.delete(conversationId);
    });
    return next;
  };
  return {
    prepare: (request) => serial(request.conversationId, () => contexts.prepare(request)),
    compact: (request, reason) => serial(request.conversationId, () => contexts.compact(request, reason)),
  };
}
