import { type Database, type FeatureMigrations, migrate, openDatabase } from '@openlegion/infra/sqlite';
import { AgentRunsRepository } from './agent-runs-repository.js';
import { AgentsRepository } from './agents-repository.js';
import { REGISTRY_MIGRATIONS } from './registry-migrations.js';

/** The registry's migration track in mesh.db. It owned mesh.db's `user_version` before tracks. */
export const REGISTRY_FEATURE: FeatureMigrations = {
  feature: 'agents',
  steps: REGISTRY_MIGRATIONS,
  adoptsUserVersion: true,
};

/** Where the registry keeps agents and their runs, across host restarts. */
export interface RegistryStore {
  readonly agents: AgentsRepository;
  readonly runs: AgentRunsRepository;
}

/** The registry's repositories over a database that has had {@link REGISTRY_FEATURE} applied. */
export function registryStore(db: Database): RegistryStore {
  return { agents: new AgentsRepository(db), runs: new AgentRunsRepository(db) };
}

/** Open `file` (`':memory:'` in tests) with the registry's migrations applied. */
export function openRegistryStore(file: string): RegistryStore & { db: Database } {
  const db = openDatabase(file);
  try {
    migrate(db, [REGISTRY_FEATURE]);
  } catch (error) {
    db.close();
    throw error;
  }
  return { db, ...registryStore(db) };
}
