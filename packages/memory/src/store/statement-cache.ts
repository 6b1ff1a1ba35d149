import type { Database } from '@openlegion/infra/sqlite';
import type { Statement } from 'better-sqlite3';

/** Distinct SQL texts kept per connection; IN lists of many lengths could otherwise grow it forever. */
const MAX_CACHED = 256;
const caches = new WeakMap<Database, Map<string, unknown>>();

/**
 * `db.prepare(sql)`, compiled once per connection and reused: compiling costs more than running
 * most of the memory engine's statements. SQLite re-prepares a cached statement by itself when the
 * schema changes (e.g. the vector tables recreated by a reembed).
 */
// biome-ignore lint/complexity/noBannedTypes: the same bound as better-sqlite3's own `prepare`
export function prepared<P extends unknown[] | {} = unknown[], R = unknown>(
  db: Database,
  sql: string,
): Statement<P, R> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  const cached = cache.get(sql);
  if (cached) return cached as Statement<P, R>;
  const statement = db.prepare<P, R>(sql);
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(sql, statement);
  return statement;
}
