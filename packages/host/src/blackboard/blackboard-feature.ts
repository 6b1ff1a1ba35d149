import type { Timer } from '@openlegion/infra/clock';
import { type HostFeature, serviceKey } from '../features/index.js';
import { MeshPermissions } from '../permissions/index.js';
import { streamSlotsOf, writeRateOf } from '../server/index.js';
import { BLACKBOARD_MIGRATIONS } from './blackboard-migrations.js';
import { registerBlackboardRoutes } from './blackboard-routes.js';
import { BlackboardStore } from './blackboard-store.js';
import { BlackboardWatchers } from './blackboard-watchers.js';

/** How often expired entries are purged (reads already treat them as gone). */
const PURGE_INTERVAL_MS = 60_000;

/** The mesh's blackboard (workflows read and write it). */
export const BLACKBOARD = serviceKey<BlackboardStore>('blackboard.store');

/** The blackboard: shared JSON state in mesh.db, versioned, permission-checked, watchable. */
export function blackboardFeature(): HostFeature {
  return {
    name: 'blackboard',
    migrations: BLACKBOARD_MIGRATIONS,
    provides: [BLACKBOARD],
    build(context) {
      const watchers = new BlackboardWatchers();
      const store = new BlackboardStore(
        context.db,
        () => context.clock.now(),
        { limits: context.config.limits, isAgent: (writer) => Object.hasOwn(context.config.agents, writer) },
        watchers.notify,
      );
      const permissions = MeshPermissions.of(context.config);
      context.provide(BLACKBOARD, store);
      let purge: Timer | undefined;
      return {
        routes: (app) =>
          registerBlackboardRoutes(app, {
            stopping: context.signal,
            streams: streamSlotsOf(context),
            writes: writeRateOf(context),
            limits: context.config.limits,
            store: () => store,
            watchers: () => watchers,
            permissions: () => permissions,
          }),
        start() {
          const sweep = () => {
            store.purgeExpired();
            store.pruneAudit();
            purge = context.clock.setTimeout(sweep, PURGE_INTERVAL_MS);
          };
          sweep();
        },
        stop() {
          purge?.cancel();
        },
      };
    },
  };
}
