export type { FeatureContext, HostFeature } from './host-feature.js';
