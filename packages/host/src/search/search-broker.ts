import type { Clock } from '@openlegion/infra/clock';
import {
  OpenLegionError,
  type SearchAnswer,
  type SearchConfig,
  type SearchResult,
} from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { CostMeter } from '../costs/index.js';
import { ModelHealthBoard } from '../llm/index.js';
import { parseSecretReference, type SecretSource } from '../secrets/index.js';
import type { ProviderClient } from './provider-call.js';
import { ProviderFailure } from './provider-failure.js';
import { providerFailureOf } from './provider-status.js';
import { addResults } from './result-cleaner.js';
import type { RawResult, SearchQuery } from './search-adapter.js';
import { SearchCache } from './search-cache.js';
import type { SearchProvider } from './search-providers.js';

/** The most of a provider's answer read (bytes): a page of results is tens of KiB. */
export const SEARCH_ANSWER_MAX_BYTES = 2 * 1024 * 1024;

export interface SearchBrokerDeps {
  providers: readonly SearchProvider[];
  config: SearchConfig;
  client: ProviderClient;
  secrets: SecretSource;
  meter: CostMeter;
  clock: Clock;
  logger: Logger;
  /** Something the operator must fix (a refused or missing key): `openlegion status` shows it. */
  warn(message: string): void;
}

/** Who is searching, for the costs and the trace. */
export interface SearchCaller {
  agent: string;
  requestId: string;
  traceId: string | null;
}

/**
 * Web search for the agents: the providers of mesh.yaml tried in order with failover, as the LLM
 * proxy does for models (the same {@link ModelHealthBoard}: a refused key sets a provider aside for
 * an hour, a 429 for its Retry-After, 5xx, timeouts and malformed answers 1 → 5 → 25 min). With
 * `search.top_up`, when the first provider that answers gives fewer results than asked, the next
 * tops them up; results are cleaned and deduplicated by URL (within and across providers). Answers are cached per query, count and
 * freshness. Each answered call is charged at its provider's price against the agent's budget.
 */
export class SearchBroker {
  readonly #deps: SearchBrokerDeps;
  readonly #health: ModelHealthBoard;
  /** Providers whose missing key the operator has been told of (until it is found). */
  readonly #missingKeyTold = new Set<string>();
  readonly #cache: SearchCache<{ query: string; results: SearchResult[]; providers: string[] }>;

  constructor(deps: SearchBrokerDeps) {
    this.#deps = deps;
    this.#health = new ModelHealthBoard(deps.clock);
    this.#cache = new SearchCache({
      clock: deps.clock,
      ttlMs: deps.config.cache_ttl_s * 1000,
      maxEntries: deps.config.cache_entries,
    });
  }

  /** Each provider's health (ok, or cooling down until when and why), for the operator. */
  health() {
    return this.#deps.providers.map(({ name }) => this.#health.state(name));
  }

  /**
   * Search; throws SEARCH_NOT_CONFIGURED (no provider in mesh.yaml), SEARCH_UNAVAILABLE (none
   * answered; the message names each and why) or BUDGET_EXCEEDED.
   */
  async search(caller: SearchCaller, query: SearchQuery): Promise<SearchAnswer> {
    const { providers } = this.#deps;
    if (providers.length === 0)
      throw new OpenLegionError(
        'SEARCH_NOT_CONFIGURED',
        'web search has no provider: add one under search.providers in mesh.yaml (a SearXNG instance, or a Brave or Tavily key; see docs/search.md)',
      );
    const key = JSON.stringify([query.query.toLowerCase(), query.count, query.freshness ?? null]);
    const hit = this.#cache.get(key);
    if (hit) return { ...hit, cached: true, skipped: [] };
    const collected = { results: [] as SearchResult[], seen: new Set<string>() };
    const answered: string[] = [];
    const skipped: { provider: string; reason: string }[] = [];
    for (const provider of providers) {
      if (answered.length > 0 && (!this.#deps.config.top_up || collected.results.length >= query.count))
        break;
      if (!this.#health.available(provider.name)) {
        const state = this.#health.state(provider.name);
        skipped.push({
          provider: provider.name,
          reason: `cooling down until ${state.cooldown_until} after a ${state.last_failure} failure`,
        });
        continue;
      }
      try {
        const raw = await this.#attempt(caller, provider, query);
        this.#health.succeeded(provider.name);
        answered.push(provider.name);
        addResults(collected, raw, provider.name, query.count);
      } catch (error) {
        if (!(error instanceof ProviderFailure)) throw error;
        this.#failed(caller, provider, error);
        skipped.push({ provider: provider.name, reason: error.message });
      }
    }
    if (answered.length === 0)
      throw new OpenLegionError(
        'SEARCH_UNAVAILABLE',
        `no search provider answered: ${skipped.map(({ provider, reason }) => `${provider}: ${reason}`).join('; ')}`,
        { details: { providers: skipped } },
      );
    const answer = { query: query.query, results: collected.results, providers: answered };
    this.#cache.set(key, answer);
    return { ...answer, cached: false, skipped };
  }

  /** One provider's results, charged when it answers; a {@link ProviderFailure} otherwise. */
  async #attempt(caller: SearchCaller, provider: SearchProvider, query: SearchQuery): Promise<RawResult[]> {
    const { client, config, meter, logger } = this.#deps;
    const apiKey = this.#key(provider);
    this.#missingKeyTold.delete(provider.name);
    const request = provider.adapter.request(query, { baseUrl: provider.baseUrl, apiKey });
    const charge = meter.openFlat({
      agent: caller.agent,
      model: `search/${provider.name}`,
      usd: provider.priceUsd,
      requestId: caller.requestId,
      traceId: caller.traceId,
    });
    const started = this.#deps.clock.now();
    try {
      const answer = await client.send(request, {
        timeoutMs: config.timeout_ms,
        maxBytes: SEARCH_ANSWER_MAX_BYTES,
      });
      const scrub = (text: string) => (apiKey ? text.split(apiKey).join('[redacted]') : text);
      const failure = providerFailureOf(provider.adapter, answer, scrub);
      if (failure) throw failure;
      let json: unknown;
      try {
        json = JSON.parse(answer.text);
      } catch {
        throw new ProviderFailure(
          'server',
          `answered ${answer.status} with something that is not JSON: ${JSON.stringify(scrub(answer.text.slice(0, 80)))}`,
        );
      }
      const results = provider.adapter.parse(json);
      charge.settle();
      logger.info(
        {
          agent: caller.agent,
          provider: provider.name,
          results: results.length,
          ms: this.#deps.clock.now() - started,
        },
        'search ok',
      );
      return results;
    } catch (error) {
      charge.release();
      throw error;
    }
  }

  /** The provider's key, or an `auth` failure saying where to set it (never a value). */
  #key(provider: SearchProvider): string | undefined {
    if (provider.apiKey === undefined) return undefined;
    const reference = parseSecretReference(provider.apiKey);
    const value = this.#deps.secrets.lookup(reference);
    if (!value)
      throw new ProviderFailure(
        'auth',
        `its key ${provider.apiKey} is not set: ${this.#deps.secrets.howToSet(reference)}`,
        // Nothing was sent: the next search looks again, so a key set now is used at once.
        { coolsDown: false },
      );
    return value;
  }

  /** Cool the provider down by the failure's class and tell the operator what to fix. */
  #failed(caller: SearchCaller, provider: SearchProvider, failure: ProviderFailure): void {
    if (!failure.coolsDown) {
      // Told once until the key is found, not at every search.
      if (this.#missingKeyTold.has(provider.name)) return;
      this.#missingKeyTold.add(provider.name);
      this.#deps.warn(
        `search provider "${provider.name}" (${provider.kind}) ${failure.message}; until then it is skipped`,
      );
      return;
    }
    const cooldownMs = this.#health.failed(provider.name, failure.failure, failure.retryAfterMs);
    const fields = { agent: caller.agent, provider: provider.name, failure: failure.failure, cooldownMs };
    if (failure.failure === 'auth' || failure.failure === 'billing')
      this.#deps.warn(
        `search provider "${provider.name}" (${provider.kind}) ${failure.message}; it is set aside for ${Math.round(cooldownMs / 60_000)} min: fix search.providers.${provider.name} in mesh.yaml or its key in the vault`,
      );
    else this.#deps.logger.warn({ ...fields, reason: failure.message }, 'search provider failed');
  }
}
