// The lean entry the CLI's `start` uses: the host's composition without loading fastify up front
// (the root loads the server itself once the agents are starting).

export { keepPrivate } from './features/index.js';
export type { StartProgress } from './fleet/index.js';
export { removeCrashLeftovers, removeSwarmHost, startSwarmHost } from './fleet/index.js';
export { createMeshHost } from './mesh-host.js';
export type { MeshHost, MeshHostOptions } from './mesh-host-options.js';
export { installProcessGuard } from './server/index.js';
