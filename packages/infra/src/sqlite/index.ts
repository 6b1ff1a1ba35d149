export { GroupCommit } from './group-commit.js';
export { type FeatureMigrations, migrate, schemaVersion } from './migrations.js';
export { type Database, type OpenDatabaseOptions, openDatabase, transaction } from './open-database.js';
