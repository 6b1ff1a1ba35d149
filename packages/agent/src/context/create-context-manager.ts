import { type Clock, systemClock } from '@openlegion/infra/clock';
import { type Database, openDatabase } from '@openlegion/infra/sqlite';
import type { MemoryEngine } from '@openlegion/memory';
import type OpenAI from 'openai';
import type { Logger } from 'pino';
import type { ContextManager } from './context-manager.js';
import type { ContextServices, ContextSettings } from './context-services.js';
import { ContextStateStore } from './context-state-store.js';
import { ConversationContexts } from './conversation-contexts.js';
import { createFactSink } from './fact-sink.js';
import { createFastTierCall, FAST_TIER_MODEL, type FastTierCall } from './fast-tier.js';
import { createLosslessManager } from './lossless/create-lossless-manager.js';
import type { LosslessSettings } from './lossless/lossless-settings.js';
import { TokenCounter } from './token-counter.js';

export interface ContextManagerDeps {
  /** The SDK client pointed at the host's `/v1`; asked only when a flush or summary runs. */
  llm: () => Promise<OpenAI>;
  /** The agent's memory engine (opened on first use). */
  memory: () => MemoryEngine;
  /** The agent's workspace (`/data/workspace`): MEMORY.md and `memory/YYYY-MM-DD.md` live there. */
  workspaceDir: string;
  /** Where compaction state is kept: an open database (the agent's), or a file to open. */
  database: Database | string;
  settings: ContextSettings;
  logger: Logger;
  clock?: Clock;
  /** The model that flushes and summarises; default the `fast` tier. */
  fastModel?: string;
  /** Shared counter (tests and benchmarks reuse one so tokenizer tables load once). */
  tokenCounter?: TokenCounter;
  /** The fast-tier caller itself (benchmarks script one); default one over `llm`. */
  fastTierCall?: FastTierCall;
  /** Overrides of the `lossless` strategy's constants (tests use small ones). */
  lossless?: Partial<LosslessSettings>;
}

/** A {@link ContextManager} that owns a database it opened itself closes it here. */
export type ClosableContextManager = ContextManager & { close(): void };

/**
 * The context manager the loop calls: counts the prompt, flushes facts at `flush_at`, compacts at
 * `compact_at`, asks for a wrap-up at `wrap_up_at`, and keeps its state per conversation in SQLite.
 * Calls for one conversation run one at a time.
 */
export function createContextManager(deps: ContextManagerDeps): ClosableContextManager {
  const ownsDatabase = typeof deps.database === 'string';
  const db = typeof deps.database === 'string' ? openDatabase(deps.database) : deps.database;
  const clock = deps.clock ?? systemClock;
  const call =
    deps.fastTierCall ??
    createFastTierCall(deps.llm, deps.fastModel ?? FAST_TIER_MODEL, (error) =>
      deps.logger.warn(
        { err: error },
        "fast tier unavailable; the call went to the default tier (its cost is the default model's)",
      ),
    );
  const counter = deps.tokenCounter ?? new TokenCounter();
  const services: ContextServices = {
    settings: deps.settings,
    call,
    sink: createFactSink({
      memory: deps.memory,
      workspaceDir: deps.workspaceDir,
      clock,
      logger: deps.logger,
    }),
    store: new ContextStateStore(db),
    clock,
    logger: deps.logger,
  };
  if (deps.settings.strategy === 'lossless') {
    const lossless = createLosslessManager({ ...deps, db, clock, call, counter, flush: services });
    return { ...lossless, close: () => (ownsDatabase ? db.close() : undefined) };
  }
  const manager = new ConversationContexts(services, counter);
  return {
    prepare: (request) => manager.serial(request.conversationId, () => manager.prepare(request)),
    compact: (request, reason) =>
      manager.serial(request.conversationId, () => manager.compact(request, reason)),
    close: () => {
      if (ownsDatabase) db.close();
    },
  };
}
