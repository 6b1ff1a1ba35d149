export { createProviderClient, type ProviderClient } from './provider-call.js';
export { SEARCH_ANSWER_MAX_BYTES, SearchBroker } from './search-broker.js';
export { SEARCHES_PER_AGENT, searchFeature } from './search-feature.js';
export { SEARCH_BROKER } from './search-keys.js';
