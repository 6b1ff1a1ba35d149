import type { FeatureMigrations } from '@openlegion/infra/sqlite';
import { CATEGORY_DESCRIPTIONS } from '../model/category-rules.js';
import { BUILTIN_CATEGORIES } from '../model/memory-item.js';

const seedCategories = BUILTIN_CATEGORIES.map(
  (name) =>
    `INSERT INTO memory_categories (name, builtin, description, summary, updated_at)
     VALUES ('${name}', 1, '${(CATEGORY_DESCRIPTIONS[name] ?? '').replaceAll("'", "''")}', '', 0);`,
).join('\n');

/**
 * The memory feature's schema, append only (infra's runner tracks the version per feature and
 * refuses a file whose version is newer than these steps). The vector tables are not here: their
 * dimension is known only when the first embedding is made (see `VectorIndex`).
 */
export const MEMORY_MIGRATIONS: FeatureMigrations = {
  feature: 'memory',
  steps: [
    `CREATE TABLE memory_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
     CREATE TABLE memory_categories (
       id INTEGER PRIMARY KEY,
       name TEXT NOT NULL UNIQUE,
       builtin INTEGER NOT NULL DEFAULT 0,
       description TEXT NOT NULL DEFAULT '',
       summary TEXT NOT NULL DEFAULT '',
       item_count INTEGER NOT NULL DEFAULT 0,
       vector_sum BLOB,
       updated_at INTEGER NOT NULL
     ) STRICT;
     CREATE TABLE memory_items (
       id INTEGER PRIMARY KEY,
       scope TEXT NOT NULL,
       category TEXT NOT NULL,
       abstract TEXT NOT NULL,
       overview TEXT NOT NULL,
       content TEXT NOT NULL,
       tier TEXT NOT NULL CHECK (tier IN ('core', 'working', 'peripheral')),
       temporal_type TEXT NOT NULL CHECK (temporal_type IN ('static', 'dynamic')),
       importance REAL NOT NULL CHECK (importance BETWEEN 0 AND 1),
       confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
       access_count INTEGER NOT NULL DEFAULT 0,
       last_accessed_at INTEGER,
       created_at INTEGER NOT NULL,
       updated_at INTEGER NOT NULL,
       source TEXT NOT NULL CHECK (source IN ('chat', 'flush', 'tool', 'import')),
       source_ref TEXT,
       version INTEGER NOT NULL DEFAULT 1,
       superseded_by INTEGER,
       embedding BLOB
     ) STRICT;
     CREATE INDEX memory_items_live ON memory_items (scope, category) WHERE superseded_by IS NULL;
     CREATE VIRTUAL TABLE memory_fts USING fts5(abstract, overview, content, tokenize = 'porter unicode61');
     ${seedCategories}`,
    // Every change to an item's vector, in commit order: connections holding vectors in memory
    // (vector-scan/) replay it to stay current with each other's writes. Pruned from the oldest.
    `CREATE TABLE memory_vector_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, item_id INTEGER NOT NULL);`,
  ],
};
