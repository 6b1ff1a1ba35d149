export { type LoadedMeshConfig, loadMeshConfig, parseMeshConfig } from './load-mesh-config.js';
// Cron schedules are config: mesh.yaml and workflow files are checked with them before anything runs.
export { firstRun, nextRunAfter, parseSchedule, type Schedule, TOP_OF_HOUR_JITTER_MS } from './schedule.js';
export { addTemporaryAgent, freezeMeshConfig, removeTemporaryAgent } from './temporary-agents.js';
export {
  type ConfigProblem,
  type FieldPath,
  formatConfigProblem,
  problemsMessage,
  sortProblems,
  YamlSource,
} from './yaml-source.js';
