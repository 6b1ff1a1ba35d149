import type { Database } from './open-database.js';
import { transaction } from './open-database.js';

interface Pending<T> {
  work: () => T;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: writes submitted in the same turn of the event loop run in one transaction, each
 * in its own savepoint (one that throws is rolled back alone and rejects alone), and resolve only
 * after the transaction committed. With `synchronous = FULL` a batch costs one disk sync, not one
 * per write, and every write is still acknowledged only once it is durable.
 *
 * @example
 * const commits = new GroupCommit(db);
 * const entry = await commits.submit(() => store.putNow(key, value)); // resolved after COMMIT
 */
export class GroupCommit {
  readonly #db: Database;
  #queue: Pending<unknown>[] = [];

  constructor(db: Database) {
    this.#db = db;
  }

  submit<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#queue.length === 0) setImmediate(() => this.#flush());
      this.#queue.push({ work, resolve, reject } as Pending<unknown>);
    });
  }

  #flush(): void {
    const batch = this.#queue;
    this.#queue = [];
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      transaction(this.#db, () => {
        for (const pending of batch) {
          try {
            outcomes.push({ ok: true, value: transaction(this.#db, pending.work) });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      // The commit itself failed (disk full, I/O error): nothing of the batch was written.
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, index) => {
      const outcome = outcomes[index];
      if (outcome?.ok) pending.resolve(outcome.value);
      else pending.reject(outcome?.error);
    });
  }
}
