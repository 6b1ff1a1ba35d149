export { buildFeatures, type SharedContext } from './build-features.js';
export { EventBus } from './event-bus.js';
export { FeatureLifecycle } from './feature-lifecycle.js';
export { featureOrder } from './feature-order.js';
export {
  featureDatabase,
  type HostContext,
  type HostContextOptions,
  keepPrivate,
  openHostContext,
  resolveSecret,
} from './host-context.js';
export type { BuiltFeature, FeatureContext, FeatureParts, HostFeature } from './host-feature.js';
export { OperatorNotices } from './operator-notices.js';
export { type EventKey, eventKey, type ServiceKey, serviceKey } from './service-key.js';
