import { OpenLegionError } from '@openlegion/protocol';
import { firstRun, parseSchedule } from '../config/index.js';
import type { FeatureContext, HostFeature } from '../features/index.js';
import { LANES, type Lanes } from '../lanes/index.js';
import { CRON_SPAWN_DUE } from './cron-events.js';
import { CRON_MIGRATIONS, type CronJob, CronRepository } from './cron-repository.js';
import { registerCronRoutes } from './cron-routes.js';
import { CronScheduler } from './cron-scheduler.js';

/** The job id of the `index`th cron entry of an agent in mesh.yaml. */
export const configJobId = (agent: string, index: number) => `${agent}#${index}`;

/**
 * Cron and heartbeat jobs from mesh.yaml and from agents, persisted in mesh.db. Each run becomes
 * an item in the agent's lane (a `heartbeat` item for heartbeat jobs); its result is recorded on
 * the job, and a silent heartbeat is delivered nowhere.
 */
export function cronFeature(options: { lanes?: Lanes } = {}): HostFeature {
  const fire =
    (lanes: Lanes, context: FeatureContext, repo: CronRepository) =>
    async (job: CronJob, scheduledAt: number) => {
      if (job.spawn) {
        context.events.emit(CRON_SPAWN_DUE, {
          job,
          scheduledAt,
          record: (result) => repo.recordResult(job.id, result.slice(0, 500)),
        });
        return;
      }
      await lanes.enqueue({
        agent: job.agent,
        kind: job.heartbeat ? 'heartbeat' : 'chat',
        message: job.message ?? (job.heartbeat ? 'heartbeat' : `scheduled run of ${job.id}`),
        conversationId: `cron:${job.id}`,
        source: 'cron',
        sourceRef: job.id,
        idempotencyKey: `cron:${job.id}:${scheduledAt}`,
      });
    };

  return {
    name: 'cron',
    migrations: CRON_MIGRATIONS,
    needs: options.lanes ? [] : [LANES],
    build(context) {
      const lanes = options.lanes ?? context.need(LANES);
      const repo = new CronRepository(context.db);
      syncConfigJobs(repo, context);
      const scheduler = new CronScheduler({
        repo,
        clock: context.clock,
        logger: context.logger.child({ component: 'cron' }),
        fire: fire(lanes, context, repo),
      });
      return {
        routes: (app) =>
          registerCronRoutes(app, {
            repo: () => repo,
            scheduler: () => scheduler,
            now: () => context.clock.now(),
          }),
        start() {
          lanes.deliverTo('cron', async (item) => {
            if (item.sourceRef) repo.recordResult(item.sourceRef, outcomeOf(item));
          });
          scheduler.start();
        },
        stop: () => scheduler.stop(),
      };
    },
  };
}

function outcomeOf(item: { state: string; resultText: string | null; errorMessage: string | null }): string {
  if (item.state !== 'done') return `${item.state}: ${item.errorMessage ?? ''}`.trim();
  const text = item.resultText?.trim() ?? '';
  return text === '' || text === '__SILENT__' ? '(silent)' : text.slice(0, 500);
}

/** Make mesh.yaml's jobs match the file: new ones added, changed ones rescheduled, removed ones gone. */
function syncConfigJobs(repo: CronRepository, context: FeatureContext): void {
  const now = context.clock.now();
  const ids: string[] = [];
  for (const [agent, agentConfig] of Object.entries(context.config.agents)) {
    agentConfig.cron.forEach((entry, index) => {
      const id = configJobId(agent, index);
      let schedule: ReturnType<typeof parseSchedule>;
      try {
        schedule = parseSchedule(entry.schedule, entry.timezone);
      } catch (error) {
        throw new OpenLegionError(
          'CONFIG_INVALID',
          `agents.${agent}.cron[${index}].schedule: ${(error as Error).message}`,
        );
      }
      ids.push(id);
      repo.upsert({
        id,
        agent,
        schedule: entry.schedule,
        timezone: entry.timezone ?? null,
        message: entry.message ?? null,
        heartbeat: entry.heartbeat,
        spawn: entry.spawn ?? null,
        origin: 'config',
        nextRunAt: firstRun(schedule, now, id) ?? null,
        createdAt: now,
      });
    });
  }
  repo.removeConfigJobsExcept(ids);
}
