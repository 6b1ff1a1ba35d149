export { FeatureLifecycle } from './feature-lifecycle.js';
export {
  featureDatabase,
  type HostContextOptions,
  keepPrivate,
  openHostContext,
  resolveSecret,
} from './host-context.js';
export type { FeatureContext, HostFeature } from './host-feature.js';
