import type { Logger } from 'pino';
import type { FeatureContext, HostFeature } from './host-feature.js';

/**
 * Starts features in list order and stops them in reverse. A feature counts as started as soon
 * as its start begins, so a stop during start-up (Ctrl-C) also stops the one still starting;
 * stop errors are logged and the other features still stop.
 */
export class FeatureLifecycle {
  readonly #features: readonly HostFeature[];
  readonly #logger: Logger;
  readonly #started: HostFeature[] = [];
  #stopping: Promise<void> | undefined;

  constructor(features: readonly HostFeature[], logger: Logger) {
    this.#features = features;
    this.#logger = logger;
  }

  async startAll(context: FeatureContext): Promise<void> {
    for (const feature of this.#features) {
      if (this.#stopping) return;
      this.#started.push(feature);
      await feature.start?.(context);
    }
  }

  /** Idempotent: every caller waits for the same stop. */
  stopAll(): Promise<void> {
    this.#stopping ??= (async () => {
      for (const feature of [...this.#started].reverse()) {
        try {
          await feature.stop?.();
        } catch (error) {
          this.#logger.error({ err: error, feature: feature.name }, 'feature stop failed');
        }
      }
    })();
    return this.#stopping;
  }
}
