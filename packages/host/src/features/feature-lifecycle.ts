import type { Logger } from 'pino';
import type { BuiltFeature } from './host-feature.js';

/**
 * Starts features in their start order (see `featureOrder`) and stops them in reverse. A feature counts as started as soon
 * as its start begins, so a stop during start-up (Ctrl-C) also stops the one still starting;
 * stop errors are logged and the other features still stop.
 */
export class FeatureLifecycle {
  readonly #logger: Logger;
  readonly #started: BuiltFeature[] = [];
  #stopping: Promise<void> | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  async startAll(features: readonly BuiltFeature[]): Promise<void> {
    for (const feature of features) {
      if (this.#stopping) return;
      this.#started.push(feature);
      await feature.start?.();
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
