export { healthFeature } from './health-feature.js';
export { HealthMonitor, type HealthMonitorDeps, type HealthPolicy } from './health-monitor.js';
