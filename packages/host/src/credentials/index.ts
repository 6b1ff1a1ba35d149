export { credentialsFeature, type EgressDecider } from './credentials-feature.js';
export { SecretScrubber } from './secret-scrubber.js';
