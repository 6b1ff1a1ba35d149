import { type Database, migrate, openDatabase } from '@openlegion/infra/sqlite';
import { SLACK_FEATURE, SLACK_MIGRATIONS } from '../src/index.js';

/** mesh.db (in memory unless a file is named) with the slack track applied, as the host gives it. */
export function openSlackDatabase(file = ':memory:'): Database {
  const db = openDatabase(file);
  migrate(db, [{ feature: SLACK_FEATURE, steps: SLACK_MIGRATIONS }]);
  return db;
}
