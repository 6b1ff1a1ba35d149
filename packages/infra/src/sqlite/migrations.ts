import { OpenLegionError } from '@openlegion/protocol';
import type { Database } from 'better-sqlite3';

/**
 * One feature's schema steps, applied in order. Each feature tracks its own version, so features
 * developed in parallel never collide. Append only: never edit a step that has shipped.
 */
export interface FeatureMigrations {
  /** A stable name, e.g. `agents`, `blackboard`, `conversations`. */
  feature: string;
  steps: readonly string[];
  /**
   * Databases made before per-feature tracking recorded their one schema in `PRAGMA user_version`.
   * The one feature that owned it sets this to adopt that version instead of re-running its steps.
   */
  adoptsUserVersion?: boolean;
}

const CREATE_TRACKING_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  feature TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  applied_at TEXT NOT NULL
) STRICT`;

/**
 * Bring `db` up to date for every feature, each pending step in a transaction of its own with the
 * version it reaches. A database whose version for a feature is newer than the steps this code
 * knows is refused with an error naming the file and the feature (the code is older than the data).
 */
export function migrate(db: Database, features: readonly FeatureMigrations[]): void {
  db.exec(CREATE_TRACKING_TABLE);
  for (const feature of features) migrateFeature(db, feature);
}

/** The version a feature's schema is at in `db` (0 when none of its steps ran). */
export function schemaVersion(db: Database, feature: string): number {
  db.exec(CREATE_TRACKING_TABLE);
  const row = db
    .prepare<[string], { version: number }>('SELECT version FROM schema_migrations WHERE feature = ?')
    .get(feature);
  return row?.version ?? 0;
}

function migrateFeature(db: Database, { feature, steps, adoptsUserVersion }: FeatureMigrations): void {
  let applied = schemaVersion(db, feature);
  if (applied === 0 && adoptsUserVersion) applied = adoptUserVersion(db, feature);
  if (applied > steps.length) {
    throw new OpenLegionError(
      'STORE_SCHEMA_NEWER',
      `${db.name} has schema version ${applied} for "${feature}", newer than this code knows (${steps.length}); upgrade openlegion`,
      { details: { file: db.name, feature, version: applied, known: steps.length } },
    );
  }
  const record = db.prepare(
    `INSERT INTO schema_migrations (feature, version, applied_at) VALUES (?, ?, ?)
     ON CONFLICT (feature) DO UPDATE SET version = excluded.version, applied_at = excluded.applied_at`,
  );
  steps.slice(applied).forEach((sql, offset) => {
    db.transaction(() => {
      db.exec(sql);
      record.run(feature, applied + offset + 1, new Date().toISOString());
    }).immediate();
  });
}

function adoptUserVersion(db: Database, feature: string): number {
  const legacy = Number(db.pragma('user_version', { simple: true }));
  if (legacy === 0) return 0;
  db.transaction(() => {
    db.prepare('INSERT INTO schema_migrations (feature, version, applied_at) VALUES (?, ?, ?)').run(
      feature,
      legacy,
      new Date().toISOString(),
    );
    db.pragma('user_version = 0');
  }).immediate();
  return legacy;
}
