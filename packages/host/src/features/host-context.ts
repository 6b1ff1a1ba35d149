import { setMaxListeners } from 'node:events';
import { chmodSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { Clock } from '@openlegion/infra/clock';
import { type Database, migrate, openDatabase } from '@openlegion/infra/sqlite';
import { OpenLegionError } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { TokenRegistry } from '../auth/index.js';
import type { LoadedMeshConfig } from '../config/index.js';
import { requireSecret, type SecretSource } from '../secrets/index.js';
import { buildFeatures, type SharedContext } from './build-features.js';
import { EventBus } from './event-bus.js';
import type { BuiltFeature, HostFeature } from './host-feature.js';
import type { OperatorNotices } from './operator-notices.js';
import type { ServiceKey } from './service-key.js';

export interface HostContextOptions {
  loaded: LoadedMeshConfig;
  features: readonly HostFeature[];
  logger: Logger;
  clock: Clock;
  secrets: SecretSource;
  signal: AbortSignal;
  /** Collects the operator warnings features report. */
  warnings: string[];
  /** The agents' tokens (the root's route auth reads the same). */
  tokens: TokenRegistry;
  /** The operator's notices (the root's channels listen to the same). */
  notices: OperatorNotices;
}

/** The open host: the shared context and every feature, built, in start order. */
export interface HostContext {
  context: SharedContext;
  features: BuiltFeature[];
  /** A service a feature provides, for the composition root (INTERNAL when no feature does). */
  service<T>(key: ServiceKey<T>): T;
}

/**
 * Open `<data_dir>/mesh.db`, apply every feature's migrations, build the shared context and build
 * every feature with it, providers first.
 */
export function openHostContext(options: HostContextOptions): HostContext {
  const { loaded } = options;
  // Every acknowledged write of mesh.db is durable: a commit reaches the disk before it returns.
  const db = openDatabase(path.join(loaded.dataDir, 'mesh.db'), { synchronous: 'FULL' });
  keepPrivate(loaded.dataDir, ['mesh.db', 'mesh.db-wal', 'mesh.db-shm']);
  try {
    migrate(
      db,
      options.features.flatMap(({ name, migrations, adoptsUserVersion }) =>
        migrations ? [{ feature: name, steps: migrations, adoptsUserVersion }] : [],
      ),
    );
  } catch (error) {
    db.close();
    throw error;
  }
  const context: SharedContext = {
    config: loaded.config,
    dataDir: loaded.dataDir,
    resolvePath: loaded.resolvePath,
    db,
    clock: options.clock,
    logger: options.logger,
    secrets: options.secrets,
    signal: everyListener(options.signal),
    warn: (message) => {
      options.logger.warn(message);
      options.warnings.push(message);
    },
    events: new EventBus(options.logger),
    tokens: options.tokens,
    notices: options.notices,
  };
  const services = new Map<string, unknown>();
  try {
    return {
      context,
      features: buildFeatures(options.features, context, services),
      service<T>(key: ServiceKey<T>): T {
        if (!services.has(key.name))
          throw new OpenLegionError('INTERNAL', `no feature of this host provides "${key.name}"`);
        // Stored under this key's name by its provider's `provide<T>`, so it is a T.
        return services.get(key.name) as T;
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** mesh.db with one more feature's migrations applied (for a component wired beside the host). */
export function featureDatabase(context: SharedContext, feature: string, steps: readonly string[]): Database {
  migrate(context.db, [{ feature, steps }]);
  return context.db;
}

/** The value behind a `vault:`/`env:` reference; CONFIG_INVALID naming it when it is not set. */
export function resolveSecret(context: SharedContext, reference: string): string {
  return requireSecret(
    context.secrets,
    reference,
    (hint) => new OpenLegionError('CONFIG_INVALID', `${reference} is not set: ${hint}`),
  );
}

/** The host's stop signal: every open stream (watches, subscriptions) listens to it, legitimately. */
function everyListener(signal: AbortSignal): AbortSignal {
  setMaxListeners(0, signal);
  return signal;
}

/** The data dir and its files are the host's alone: 0700 for the dir, 0600 for each file named. */
export function keepPrivate(dataDir: string, files: readonly string[]): void {
  chmodSync(dataDir, 0o700);
  for (const file of files) {
    const full = path.join(dataDir, file);
    if (existsSync(full)) chmodSync(full, 0o600);
  }
}
