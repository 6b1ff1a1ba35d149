// The lean entry the CLI's `start` uses: the host's composition without loading fastify up front
// (createMeshHost loads the server itself once the agents are starting).
export {
  createMeshHost,
  type MeshHost,
  type MeshHostOptions,
  removeCrashLeftovers,
  type StartProgress,
} from './mesh-host.js';
