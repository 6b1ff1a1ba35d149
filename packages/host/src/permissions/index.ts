export { type MeshPermission, MeshPermissions } from './mesh-permissions.js';
export { compileGlob, globMatcher, type PatternMatch, topicMatcher } from './pattern-matcher.js';
