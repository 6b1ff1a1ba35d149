export { eventMessage, Pubsub } from './pubsub.js';
export { PUBSUB, pubsubFeature } from './pubsub-feature.js';
export { PubsubStore, type Subscription } from './pubsub-store.js';
export { topicMatcher } from './topic-pattern.js';
