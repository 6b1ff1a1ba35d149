export {
  defaultPages,
  type FakeSearchFault,
  type FakeSearchOptions,
  type FakeSearchProvider,
  type FakeSearchRequest,
  startFakeSearchProvider,
} from './fake-search-provider.js';
export type { FakeSearchKind, FakeSearchPage } from './search-wire-formats.js';
