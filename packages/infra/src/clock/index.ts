export { type Clock, sleepOn, systemClock, type Timer } from './clock.js';
export { FakeClock } from './fake-clock.js';
