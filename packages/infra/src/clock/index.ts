export { type Clock, sleepOn, systemClock, type Timer } from './clock.js';
export { FakeClock } from './fake-clock.js';
export { backoffFrom, type RetryOptions, retry } from './retry.js';
