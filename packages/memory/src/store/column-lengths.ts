import type { Database } from '@openlegion/infra/sqlite';
import { prepared } from './statement-cache.js';

/** Columns of `memory_fts`, in order: abstract, overview, content. */
export const FTS_COLUMNS = 3;

/**
 * Average tokens per item in each column of `memory_fts` (abstract, overview, content), from FTS5's
 * averages record: row 1 of `memory_fts_data` holds the row count and then each column's total token
 * count, as SQLite varints. It is kept current on every write, so reading it costs no scan.
 * Undefined when the index is empty or the record is unreadable.
 */
export function averageColumnLengths(db: Database): readonly number[] | undefined {
  const block = prepared<[], { block: Buffer }>(db, 'SELECT block FROM memory_fts_data WHERE id = 1').get()
    ?.block;
  if (!block) return undefined;
  const values = readVarints(block, 1 + FTS_COLUMNS);
  const [rows, ...totals] = values;
  if (rows === undefined || rows <= 0 || totals.length < FTS_COLUMNS) return undefined;
  return totals.map((total) => total / rows);
}

/**
 * Up to `count` SQLite varints from the start of `bytes`: big-endian groups of 7 bits, high bit set
 * on every byte but the last; a 9th byte contributes all 8 bits.
 */
export function readVarints(bytes: Uint8Array, count: number): number[] {
  const values: number[] = [];
  let offset = 0;
  while (values.length < count && offset < bytes.length) {
    let value = 0;
    let length = 0;
    for (;;) {
      const byte = bytes[offset + length];
      if (byte === undefined) return values;
      if (length === 8) {
        value = value * 256 + byte;
        length++;
        break;
      }
      value = value * 128 + (byte & 0x7f);
      length++;
      if ((byte & 0x80) === 0) break;
    }
    values.push(value);
    offset += length;
  }
  return values;
}
