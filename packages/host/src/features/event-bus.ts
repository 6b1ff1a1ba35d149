import type { Logger } from 'pino';
import type { EventKey } from './service-key.js';

type Handler = (payload: never) => void;

/**
 * The host's one in-process bus for facts features announce (usage recorded, lane item settled,
 * egress decided, ...): the announcing feature does not know who listens. Handlers run
 * synchronously, in the order they subscribed, inside `emit`; a handler that throws is logged with
 * the event's name and the others still run, so a listener can never fail the work it hears about.
 */
export class EventBus {
  readonly #handlers = new Map<string, Handler[]>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Listen to `key`; returns the function that stops listening. */
  on<T>(key: EventKey<T>, handler: (payload: T) => void): () => void {
    const handlers = this.#handlers.get(key.name) ?? [];
    handlers.push(handler);
    this.#handlers.set(key.name, handlers);
    return () => {
      const index = handlers.indexOf(handler);
      if (index >= 0) handlers.splice(index, 1);
    };
  }

  /** Tell every listener of `key`. */
  emit<T>(key: EventKey<T>, payload: T): void {
    const handlers = this.#handlers.get(key.name);
    if (!handlers) return;
    for (const handler of [...handlers]) {
      try {
        (handler as (payload: T) => void)(payload);
      } catch (error) {
        this.#logger.error({ err: error, event: key.name }, 'an event listener failed');
      }
    }
  }
}
