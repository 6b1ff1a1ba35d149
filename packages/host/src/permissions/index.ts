export { globMatcher } from './glob.js';
export { type MeshPermission, MeshPermissions } from './mesh-permissions.js';
