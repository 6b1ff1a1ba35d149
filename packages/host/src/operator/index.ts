export { type ChannelMeshDeps, createChannelMesh } from './channel-mesh.js';
export { operatorFeature } from './operator-feature.js';
export type { OperatorRouteDeps } from './operator-routes.js';
