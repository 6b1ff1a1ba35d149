export { configJobId, cronFeature } from './cron-feature.js';
export { type CronJob, CronRepository } from './cron-repository.js';
