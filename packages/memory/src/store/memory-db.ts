import { type Database, migrate, openDatabase } from '@openlegion/infra/sqlite';
import { OpenLegionError } from '@openlegion/protocol';
import { getLoadablePath } from 'sqlite-vec';
import { MEMORY_MIGRATIONS } from './schema.js';

/** Largest span of the file read through the memory map. */
const MMAP_BYTES = 1 << 30;

/**
 * Open (or create) a memory database: WAL, foreign keys, busy timeout (infra), the sqlite-vec
 * extension, and the memory schema brought up to date.
 *
 * @throws {OpenLegionError} `MEM_STORE_UNAVAILABLE` when the file or the extension cannot be opened;
 * `STORE_SCHEMA_NEWER` when the file was written by a newer openlegion.
 */
export function openMemoryDb(file: string): Database {
  let db: Database;
  try {
    db = openDatabase(file);
  } catch (error) {
    throw new OpenLegionError(
      'MEM_STORE_UNAVAILABLE',
      `cannot open memory database ${file}: ${reason(error)}`,
      {
        cause: error,
        details: { file },
      },
    );
  }
  try {
    // Reads through a memory map: a KNN scan touches every vector chunk, and copying each page
    // through SQLite's small page cache took half of a 100k-item search. This reserves address
    // space, not memory; the pages stay the operating system's to evict.
    db.pragma(`mmap_size = ${MMAP_BYTES}`);
    db.loadExtension(getLoadablePath());
  } catch (error) {
    db.close();
    throw new OpenLegionError(
      'MEM_STORE_UNAVAILABLE',
      `cannot load sqlite-vec into ${file}: ${reason(error)}`,
      {
        cause: error,
        details: { file },
      },
    );
  }
  try {
    migrate(db, [MEMORY_MIGRATIONS]);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `?, ?, ?` for an IN list of `count` values. */
export function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}
