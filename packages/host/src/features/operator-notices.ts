import type { OperatorNotice } from '@openlegion/protocol';
import type { Logger } from 'pino';

/**
 * Notices for the operator (approvals that wait, `on_complete.notify`), fanned out to every
 * channel that listens. A listener that throws is logged and the others still hear the notice.
 */
export class OperatorNotices {
  readonly #listeners = new Set<(notice: OperatorNotice) => void>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  readonly publish = (notice: OperatorNotice): void => {
    this.#logger.info({ notice: notice.text }, 'operator notice');
    for (const listener of this.#listeners) {
      try {
        listener(notice);
      } catch (error) {
        this.#logger.error({ err: error }, 'an operator notice listener failed');
      }
    }
  };

  subscribe(listener: (notice: OperatorNotice) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
