export {
  type ConfigProblem,
  formatConfigProblem,
  type LoadedMeshConfig,
  loadMeshConfig,
  parseMeshConfig,
} from './load-mesh-config.js';
