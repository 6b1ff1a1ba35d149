import { serviceKey } from '../features/index.js';
import type { SearchBroker } from './search-broker.js';

/** The host's web search (failover, cache, costs) for other features and tests. */
export const SEARCH_BROKER = serviceKey<SearchBroker>('search.broker');
