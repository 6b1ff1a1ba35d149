export { configJobId, cronFeature } from './cron-feature.js';
export { type CronJob, CronRepository } from './cron-repository.js';
export { firstRun, nextRunAfter, parseSchedule, type Schedule, TOP_OF_HOUR_JITTER_MS } from './schedule.js';
