export { CRON_SPAWN_DUE } from './cron-events.js';
export { configJobId, cronFeature } from './cron-feature.js';
export { type CronJob, CronRepository } from './cron-repository.js';
