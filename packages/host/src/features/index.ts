export { FeatureLifecycle } from './feature-lifecycle.js';
export { type HostContextOptions, openHostContext } from './host-context.js';
export type { FeatureContext, HostFeature } from './host-feature.js';
