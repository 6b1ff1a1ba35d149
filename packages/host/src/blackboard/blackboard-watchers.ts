import type { BlackboardChange } from '@openlegion/protocol';

/** Everyone watching the blackboard; each committed change reaches each of them once. */
export class BlackboardWatchers {
  readonly #listeners = new Set<(change: BlackboardChange) => void>();

  /** Returns the function that stops this listener. */
  add(listener: (change: BlackboardChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  readonly notify = (change: BlackboardChange): void => {
    for (const listener of this.#listeners) listener(change);
  };

  get size(): number {
    return this.#listeners.size;
  }
}
