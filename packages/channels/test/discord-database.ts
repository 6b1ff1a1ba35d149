import { type Database, migrate, openDatabase } from '@openlegion/infra/sqlite';
import { DISCORD_FEATURE, DISCORD_MIGRATIONS } from '../src/index.js';

/** mesh.db (in memory unless a file is named) with the discord track applied, as the host gives it. */
export function openDiscordDatabase(file = ':memory:'): Database {
  const db = openDatabase(file);
  migrate(db, [{ feature: DISCORD_FEATURE, steps: DISCORD_MIGRATIONS }]);
  return db;
}
