import { CRON_SPAWN_DUE } from '../cron/index.js';
import type { HostFeature } from '../features/index.js';
import { FLEET } from '../fleet/index.js';
import { LANES } from '../lanes/index.js';
import { SHARED_MEMORY } from '../memory/index.js';
import { MeshPermissions } from '../permissions/index.js';
import { SPAWN_MIGRATIONS, SpawnRepository } from './spawn-repository.js';
import { registerSpawnRoutes } from './spawn-routes.js';
import { SpawnService } from './spawn-service.js';
import { SpawnSquads } from './spawn-squad.js';

/**
 * Fleet-level spawn (docs/mesh.md, "Fleet spawn"): temporary agents from mesh.yaml's `templates:`,
 * started by agents granted `permissions.spawn`, by the operator, and by cron entries with
 * `spawn:`. It needs the fleet (which starts and removes them), so it starts after every agent of
 * mesh.yaml and stops before them: a host stop removes its temporary agents first, and a host start
 * ends what a crashed run left (the fleet's leftover cleanup has already removed their containers).
 */
export function spawnFeature(options: { suffix?: () => string } = {}): HostFeature {
  return {
    name: 'spawn',
    migrations: SPAWN_MIGRATIONS,
    needs: [FLEET, LANES, SHARED_MEMORY],
    build(context) {
      const lanes = context.need(LANES);
      const permissions = MeshPermissions.of(context.config);
      const service = new SpawnService({
        config: context.config,
        repo: new SpawnRepository(context.db),
        fleet: context.need(FLEET),
        lanes,
        permissions,
        clock: context.clock,
        logger: context.logger.child({ component: 'spawn' }),
        events: context.events,
        squads: new SpawnSquads({
          store: context.need(SHARED_MEMORY),
          permissions,
          logger: context.logger.child({ component: 'spawn-squad' }),
        }),
        ...(options.suffix ? { suffix: options.suffix } : {}),
      });
      // Heard from the build on: cron starts before the fleet, and a run missed while the host was
      // down fires during the start (its agent then starts once the fleet can start one).
      const stopCron = context.events.on(CRON_SPAWN_DUE, ({ job, record }) => {
        try {
          const agent = service.spawn(
            { template: job.spawn ?? '', task: job.message ?? `scheduled run of ${job.id}` },
            { origin: 'cron', job: job.id, record },
          );
          record(`${agent.name}: started`);
        } catch (error) {
          record(`not run: ${(error as Error).message}`);
        }
      });
      return {
        routes: (app) => registerSpawnRoutes(app, () => service),
        start() {
          lanes.deliverTo('spawn', (item) => service.onItemSettled(item));
          service.open();
        },
        async stop() {
          stopCron();
          await service.stop();
        },
      };
    },
  };
}
