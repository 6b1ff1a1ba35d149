import type { Timer } from '@openlegion/infra/clock';
import type { HostFeature } from '../features/index.js';
import { MeshPermissions } from '../permissions/index.js';
import { streamSlotsOf } from '../server/index.js';
import { BLACKBOARD_MIGRATIONS } from './blackboard-migrations.js';
import { registerBlackboardRoutes } from './blackboard-routes.js';
import { BlackboardStore } from './blackboard-store.js';
import { BlackboardWatchers } from './blackboard-watchers.js';

/** How often expired entries are purged (reads already treat them as gone). */
const PURGE_INTERVAL_MS = 60_000;

export interface BlackboardFeature extends HostFeature {
  store(): BlackboardStore;
  watchers: BlackboardWatchers;
}

/** The blackboard: shared JSON state in mesh.db, versioned, permission-checked, watchable. */
export function blackboardFeature(): BlackboardFeature {
  let store: BlackboardStore | undefined;
  let permissions: MeshPermissions | undefined;
  let purge: Timer | undefined;
  const watchers = new BlackboardWatchers();
  const current = () => {
    if (!store) throw new Error('the blackboard is used before the host database is open');
    return store;
  };
  return {
    name: 'blackboard',
    migrations: BLACKBOARD_MIGRATIONS,
    watchers,
    store: current,
    init(context) {
      store = new BlackboardStore(
        context.db,
        () => context.clock.now(),
        { limits: context.config.limits, isAgent: (writer) => Object.hasOwn(context.config.agents, writer) },
        watchers.notify,
      );
      permissions = MeshPermissions.of(context.config);
    },
    routes: (app, context) =>
      registerBlackboardRoutes(app, {
        stopping: context.signal,
        streams: streamSlotsOf(context),
        limits: context.config.limits,
        store: current,
        watchers: () => watchers,
        permissions: () => {
          if (!permissions) throw new Error('the blackboard is used before the host database is open');
          return permissions;
        },
      }),
    start(context) {
      const sweep = () => {
        current().purgeExpired();
        current().pruneAudit();
        purge = context.clock.setTimeout(sweep, PURGE_INTERVAL_MS);
      };
      sweep();
    },
    stop() {
      purge?.cancel();
    },
  };
}
