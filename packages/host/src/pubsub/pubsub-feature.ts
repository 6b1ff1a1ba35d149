import type { Timer } from '@openlegion/infra/clock';
import type { HostFeature } from '../features/index.js';
import type { Lanes } from '../lanes/index.js';
import { MeshPermissions } from '../permissions/index.js';
import { streamSlotsOf } from '../server/index.js';
import { Pubsub } from './pubsub.js';
import { PUBSUB_MIGRATIONS } from './pubsub-migrations.js';
import { registerPubsubRoutes } from './pubsub-routes.js';
import { PubsubStore } from './pubsub-store.js';

/** Bounded retention of the event log: the newest events, and none older than a week. */
const KEEP_EVENTS = 100_000;
const KEEP_MS = 7 * 24 * 3_600_000;
const PRUNE_INTERVAL_MS = 10 * 60_000;

export interface PubsubFeature extends HostFeature {
  pubsub(): Pubsub;
}

/** Pub/sub: a persisted event log, durable subscriptions with cursors, SSE streams and lane wake-ups. */
export function pubsubFeature(options: { lanes: Pick<Lanes, 'enqueue'> }): PubsubFeature {
  let state: { pubsub: Pubsub; store: PubsubStore; permissions: MeshPermissions } | undefined;
  let prune: Timer | undefined;
  const current = () => {
    if (!state) throw new Error('pub/sub is used before the host database is open');
    return state;
  };
  return {
    name: 'pubsub',
    migrations: PUBSUB_MIGRATIONS,
    pubsub: () => current().pubsub,
    init(context) {
      const store = new PubsubStore(context.db, context.config.limits);
      const permissions = MeshPermissions.of(context.config);
      const logger = context.logger.child({ component: 'pubsub' });
      state = {
        store,
        permissions,
        pubsub: new Pubsub({ store, lanes: options.lanes, permissions, clock: context.clock, logger }),
      };
    },
    routes: (app, context) =>
      registerPubsubRoutes(app, {
        pubsub: () => current().pubsub,
        store: () => current().store,
        permissions: () => current().permissions,
        now: () => context.clock.now(),
        stopping: context.signal,
        streams: streamSlotsOf(context),
        limits: context.config.limits,
      }),
    async start(context) {
      // Events published while the host was down, or that could not wake their subscriber, go now.
      await current().pubsub.catchUp();
      const sweep = () => {
        current().store.prune(KEEP_EVENTS, context.clock.now() - KEEP_MS);
        prune = context.clock.setTimeout(sweep, PRUNE_INTERVAL_MS);
      };
      sweep();
    },
    stop() {
      prune?.cancel();
    },
  };
}
