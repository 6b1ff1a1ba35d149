export {
  formatConfigProblem,
  loadMeshConfig,
  parseMeshConfig,
  type ConfigProblem,
  type LoadedMeshConfig,
} from './load-mesh-config.js';
