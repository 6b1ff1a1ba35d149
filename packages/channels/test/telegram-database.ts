import { type Database, migrate, openDatabase } from '@openlegion/infra/sqlite';
import { TELEGRAM_FEATURE, TELEGRAM_MIGRATIONS } from '../src/index.js';

/** mesh.db (in memory unless a file is named) with the telegram track applied, as the host gives it. */
export function openTelegramDatabase(file = ':memory:'): Database {
  const db = openDatabase(file);
  migrate(db, [{ feature: TELEGRAM_FEATURE, steps: TELEGRAM_MIGRATIONS }]);
  return db;
}
