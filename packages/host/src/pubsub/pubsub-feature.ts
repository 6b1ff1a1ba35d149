import type { Timer } from '@openlegion/infra/clock';
import { type MeshConfig, OpenLegionError } from '@openlegion/protocol';
import { type HostFeature, serviceKey } from '../features/index.js';
import { LANES, type Lanes } from '../lanes/index.js';
import { MeshPermissions } from '../permissions/index.js';
import { streamSlotsOf, writeRateOf } from '../server/index.js';
import { Pubsub } from './pubsub.js';
import { PUBSUB_MIGRATIONS } from './pubsub-migrations.js';
import { registerPubsubRoutes } from './pubsub-routes.js';
import { PubsubStore } from './pubsub-store.js';
import { followTemporaryAgents } from './temporary-agent-subscriptions.js';

/** Bounded retention of the event log: the newest events, and none older than a week. */
const KEEP_EVENTS = 100_000;
const KEEP_MS = 7 * 24 * 3_600_000;
const PRUNE_INTERVAL_MS = 10 * 60_000;

/** The mesh's pub/sub (workflows publish to it and are triggered by it). */
export const PUBSUB = serviceKey<Pubsub>('pubsub');

/**
 * Pub/sub: a persisted event log, durable subscriptions with cursors, SSE streams and lane wake-ups.
 * It wakes subscribers through the lanes it is given, and tells the lanes how many events wait for
 * an agent (its turn hears of them).
 */
export function pubsubFeature(
  options: { lanes?: Pick<Lanes, 'enqueue' | 'countPendingEventsWith'> } = {},
): HostFeature {
  return {
    name: 'pubsub',
    migrations: PUBSUB_MIGRATIONS,
    needs: options.lanes ? [] : [LANES],
    provides: [PUBSUB],
    build(context) {
      const lanes = options.lanes ?? context.need(LANES);
      const store = new PubsubStore(context.db, context.config.limits);
      const permissions = MeshPermissions.of(context.config);
      const logger = context.logger.child({ component: 'pubsub' });
      const pubsub = new Pubsub({ store, lanes, permissions, clock: context.clock, logger });
      const standing = standingSubscriptions(context.config, permissions);
      lanes.countPendingEventsWith((agent) => pubsub.pendingEvents(agent));
      context.provide(PUBSUB, pubsub);
      // Heard from the build on: a start ends the temporary agents a killed host left.
      const stopFollowing = followTemporaryAgents({
        events: context.events,
        config: context.config,
        permissions,
        store,
        now: () => context.clock.now(),
        warn: (message) => context.warn(message),
      });
      let prune: Timer | undefined;
      return {
        routes: (app) =>
          registerPubsubRoutes(app, {
            pubsub: () => pubsub,
            store: () => store,
            permissions: () => permissions,
            now: () => context.clock.now(),
            stopping: context.signal,
            streams: streamSlotsOf(context),
            writes: writeRateOf(context),
            limits: context.config.limits,
          }),
        async start() {
          for (const { agent, pattern, delivery } of standing)
            store.subscribe(agent, pattern, delivery, context.clock.now());
          // Events published while the host was down, or that could not wake their subscriber, go now.
          await pubsub.catchUp();
          const sweep = () => {
            store.prune(KEEP_EVENTS, context.clock.now() - KEEP_MS);
            prune = context.clock.setTimeout(sweep, PRUNE_INTERVAL_MS);
          };
          sweep();
        },
        stop() {
          prune?.cancel();
          stopFollowing();
        },
      };
    },
  };
}

/**
 * mesh.yaml's `agents.NAME.subscriptions`, each checked against the agent's own
 * `permissions.pubsub.subscribe` (as the route checks an agent's own request): a refused one stops
 * the start, naming the line, rather than leaving an agent deaf to what its config promises.
 */
export function standingSubscriptions(
  config: MeshConfig,
  permissions: MeshPermissions,
): { agent: string; pattern: string; delivery: 'lane' | 'stream' }[] {
  return Object.entries(config.agents).flatMap(([agent, { subscriptions }]) =>
    subscriptions.map(({ pattern, delivery }, index) => {
      if (!permissions.can(agent, 'pubsub.subscribe', pattern))
        throw new OpenLegionError(
          'CONFIG_INVALID',
          `agents.${agent}.subscriptions.${index}: "${pattern}" is not within agents.${agent}.permissions.pubsub.subscribe; add it there`,
        );
      return { agent, pattern, delivery };
    }),
  );
}
