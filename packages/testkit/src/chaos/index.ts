export {
  Chaos,
  type ChaosRates,
  type ChaosTally,
  DEFAULT_CHAOS_RATES,
  exactlyOnce,
  seededRandom,
} from './chaos.js';
