import type { Clock, Timer } from '@openlegion/infra/clock';
import type { Logger } from 'pino';
import { nextRunAfter, parseSchedule } from '../config/index.js';
import type { CronJob, CronRepository } from './cron-repository.js';

/** Re-check at least this often, so a clock jump or a long sleep never strands a job. */
const MAX_SLEEP_MS = 60_000;

export interface CronSchedulerDeps {
  repo: CronRepository;
  clock: Clock;
  logger: Logger;
  /**
   * Hand one run to the job's agent. `scheduledAt` names the run: handing the same run twice (a
   * host killed in between) must not run it twice.
   */
  fire(job: CronJob, scheduledAt: number): Promise<void>;
}

/**
 * Fires due jobs from mesh.db. A job missed while the host was down runs once when it is back,
 * then keeps its schedule from now; nothing is caught up N times.
 */
export class CronScheduler {
  readonly #deps: CronSchedulerDeps;
  #timer: Timer | undefined;
  #stopped = true;
  #ticking: Promise<void> | undefined;

  constructor(deps: CronSchedulerDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#stopped = false;
    this.rearm();
  }

  stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.cancel();
    return this.#ticking ?? Promise.resolve();
  }

  /** Sleep until the earliest job; call after jobs change. */
  rearm(): void {
    this.#timer?.cancel();
    if (this.#stopped) return;
    const earliest = this.#deps.repo.earliest();
    if (earliest === undefined) return;
    const delay = Math.min(MAX_SLEEP_MS, Math.max(0, earliest - this.#deps.clock.now()));
    this.#timer = this.#deps.clock.setTimeout(() => {
      this.#ticking = this.#tick().finally(() => {
        this.#ticking = undefined;
      });
    }, delay);
  }

  /** Run a job now, outside its schedule (`openlegion cron run`). */
  async runNow(job: CronJob): Promise<void> {
    await this.#deps.fire(job, this.#deps.clock.now());
  }

  async #tick(): Promise<void> {
    const now = this.#deps.clock.now();
    for (const job of this.#deps.repo.due(now)) {
      const scheduledAt = job.nextRunAt ?? now;
      try {
        await this.#deps.fire(job, scheduledAt);
      } catch (error) {
        this.#deps.logger.warn({ err: error, job: job.id }, 'cron run not handed over');
        this.#deps.repo.recordResult(job.id, `not run: ${(error as Error).message}`);
      }
      const next = nextRunAfter(parseSchedule(job.schedule, job.timezone ?? undefined), now, job.id);
      this.#deps.repo.recordFired(job.id, now, next ?? null);
    }
    this.rearm();
  }
}
