import type { Database } from '@openlegion/infra/sqlite';

export interface OwnerRowCapOptions {
  /** A table with an integer `id` that grows with each row (rowid order is insertion order). */
  table: string;
  /** The column naming who added the row; `(column, id)` must be indexed. */
  ownerColumn: string;
  /** Rows each owner keeps: its newest. */
  keep: number;
}

/**
 * Keeps the rows each owner (an agent) adds to a table to its newest `keep`, pruning as it writes:
 * once every `keep / 16` additions by one owner, one indexed delete of its rows past `keep`. So a
 * burst between periodic sweeps cannot fill the disk (an owner holds at most `keep * 17 / 16` rows,
 * plus what was there at start until the first sweep), and a write pays for no scan of its own.
 */
export class OwnerRowCap {
  readonly #keep: number;
  readonly #step: number;
  readonly #sinceLastPrune = new Map<string, number>();
  readonly #prune;
  readonly #owners;

  constructor(db: Database, options: OwnerRowCapOptions) {
    const { table, ownerColumn: owner } = options;
    this.#keep = options.keep;
    this.#step = Math.max(1, Math.ceil(options.keep / 16));
    this.#prune = db.prepare<{ owner: string; keep: number }>(
      `DELETE FROM ${table} WHERE ${owner} = @owner AND id <= (
         SELECT id FROM ${table} WHERE ${owner} = @owner ORDER BY id DESC LIMIT 1 OFFSET @keep)`,
    );
    this.#owners = db.prepare<[], { owner: string }>(
      `SELECT DISTINCT ${owner} AS owner FROM ${table} WHERE ${owner} IS NOT NULL`,
    );
  }

  /** `owner` added a row; prunes its oldest when it is due. Returns how many rows went. */
  added(owner: string): number {
    const since = (this.#sinceLastPrune.get(owner) ?? 0) + 1;
    if (since < this.#step) {
      this.#sinceLastPrune.set(owner, since);
      return 0;
    }
    this.#sinceLastPrune.set(owner, 0);
    return this.pruneOwner(owner);
  }

  /** Drop `owner`'s rows past its newest `keep`. */
  pruneOwner(owner: string): number {
    return this.#prune.run({ owner, keep: this.#keep }).changes;
  }

  /** Every owner's rows past its newest `keep` (the periodic sweep, and once at start). */
  pruneAll(): number {
    let pruned = 0;
    for (const { owner } of this.#owners.all()) pruned += this.pruneOwner(owner);
    return pruned;
  }
}
