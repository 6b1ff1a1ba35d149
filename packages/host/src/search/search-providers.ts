import {
  type MeshConfig,
  SEARCH_DEFAULT_BASE_URL,
  SEARCH_DEFAULT_PRICE_USD,
  type SearchProviderKind,
  searchProviderKind,
} from '@openlegion/protocol';
import { braveAdapter } from './brave-adapter.js';
import type { SearchAdapter } from './search-adapter.js';
import { searxngAdapter } from './searxng-adapter.js';
import { tavilyAdapter } from './tavily-adapter.js';

const ADAPTERS: Record<SearchProviderKind, SearchAdapter> = {
  searxng: searxngAdapter,
  brave: braveAdapter,
  tavily: tavilyAdapter,
};

/** One provider of mesh.yaml's `search:`, ready to call. */
export interface SearchProvider {
  name: string;
  kind: SearchProviderKind;
  adapter: SearchAdapter;
  baseUrl: string;
  /** The key's reference (`vault:NAME`), resolved at each call so a key set later is used. */
  apiKey: string | undefined;
  priceUsd: number;
}

/** The providers in the order they are tried (`search.order`, else as mesh.yaml writes them). */
export function searchProviders(config: MeshConfig): SearchProvider[] {
  const { providers, order } = config.search;
  const names = order ?? Object.keys(providers);
  return names.flatMap((name) => {
    const provider = providers[name];
    // The schema refuses a provider without a kind or base_url; kept safe for a config built in code.
    const kind = provider ? searchProviderKind(name, provider) : undefined;
    const baseUrl = kind ? (provider?.base_url ?? SEARCH_DEFAULT_BASE_URL[kind]) : undefined;
    if (!provider || !kind || !baseUrl) return [];
    return [
      {
        name,
        kind,
        adapter: ADAPTERS[kind],
        baseUrl,
        apiKey: provider.api_key,
        priceUsd: provider.price_usd_per_request ?? SEARCH_DEFAULT_PRICE_USD[kind],
      },
    ];
  });
}
