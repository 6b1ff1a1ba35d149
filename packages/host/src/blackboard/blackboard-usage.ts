import type { Database } from '@openlegion/infra/sqlite';

interface Owned {
  updated_by: string;
  value: string;
}

/**
 * How many entries each writer last wrote, and their bytes of JSON: read once from mesh.db, then
 * kept in step by the store's writes (it is the table's only writer), so checking a quota costs no
 * scan. Entries that expired count until they are purged (within a minute).
 */
export class BlackboardUsage {
  readonly #db: Database;
  #byWriter = new Map<string, { keys: number; bytes: number }>();

  constructor(db: Database) {
    this.#db = db;
    this.recount();
  }

  of(writer: string): { keys: number; bytes: number } {
    return { ...(this.#byWriter.get(writer) ?? { keys: 0, bytes: 0 }) };
  }

  /** The entry `before` (if any) was replaced by `after` (if any). */
  replaced(before: Owned | undefined, after: Owned | undefined): void {
    if (before) this.#add(before.updated_by, -1, -Buffer.byteLength(before.value));
    if (after) this.#add(after.updated_by, 1, Buffer.byteLength(after.value));
  }

  /** Read the counts from mesh.db again (at start, and after a commit failed). */
  recount(): void {
    const rows = this.#db
      .prepare<[], { writer: string; keys: number; bytes: number }>(
        `SELECT updated_by AS writer, count(*) AS keys, sum(length(CAST(value AS BLOB))) AS bytes
           FROM blackboard_entries GROUP BY updated_by`,
      )
      .all();
    this.#byWriter = new Map(rows.map(({ writer, keys, bytes }) => [writer, { keys, bytes }]));
  }

  #add(writer: string, keys: number, bytes: number): void {
    const current = this.#byWriter.get(writer) ?? { keys: 0, bytes: 0 };
    const next = { keys: current.keys + keys, bytes: current.bytes + bytes };
    if (next.keys <= 0) this.#byWriter.delete(writer);
    else this.#byWriter.set(writer, next);
  }
}
