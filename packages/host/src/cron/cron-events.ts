import { eventKey } from '../features/index.js';
import type { CronJob } from './cron-repository.js';

/**
 * A run of a job with `spawn:` is due: the spawn feature starts a temporary agent from the
 * template with the job's message, and calls `record` with the outcome (kept on the job). Nobody
 * listening (no spawn feature) leaves the run unrecorded; the job still keeps its schedule.
 */
export const CRON_SPAWN_DUE = eventKey<{
  job: CronJob;
  scheduledAt: number;
  record: (result: string) => void;
}>('cron.spawn-due');
