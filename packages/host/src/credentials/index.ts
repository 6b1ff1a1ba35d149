export { credentialsFeature, type EgressDecider } from './credentials-feature.js';
