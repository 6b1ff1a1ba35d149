import { parseRequest } from '@openlegion/infra/http';
import { OpenLegionError, SEARCH_PATH, searchRequestSchema, TRACE_HEADER } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { requireAgent } from '../auth/index.js';
import { COST_METER } from '../costs/index.js';
import type { FeatureContext, HostFeature } from '../features/index.js';
import { AgentSlots } from '../server/index.js';
import { createProviderClient, type ProviderClient } from './provider-call.js';
import { SearchBroker } from './search-broker.js';
import { SEARCH_BROKER } from './search-keys.js';
import { searchProviders } from './search-providers.js';
import { checkedQuery } from './search-query.js';

/** Searches one agent may have running at once: each holds a provider connection and its answer. */
export const SEARCHES_PER_AGENT = 4;

/**
 * `web_search` through the host: `POST /mesh/search` for agents whose `permissions.search` is
 * true. The host calls the providers of mesh.yaml's `search:` with its own HTTP client and keys
 * from the vault (never through the agent's egress, never a key in a container), fails over,
 * caches, and charges each answered call to the agent (`openlegion costs`: model `search/<name>`).
 */
export function searchFeature(options: { client?: ProviderClient } = {}): HostFeature {
  return {
    name: 'search',
    needs: [COST_METER],
    provides: [SEARCH_BROKER],
    build(context) {
      const client = options.client ?? createProviderClient();
      const broker = new SearchBroker({
        providers: searchProviders(context.config),
        config: context.config.search,
        client,
        secrets: context.secrets,
        meter: context.need(COST_METER),
        clock: context.clock,
        logger: context.logger,
        warn: (message) => context.warn(message),
      });
      context.provide(SEARCH_BROKER, broker);
      return {
        routes: (app) => registerSearchRoutes(app, context, broker),
        stop: () => client.close(),
      };
    },
  };
}

function registerSearchRoutes(app: FastifyInstance, context: FeatureContext, broker: SearchBroker): void {
  const slots = new AgentSlots(SEARCHES_PER_AGENT, {
    code: 'SEARCH_BUSY',
    field: "the host's cap of searches per agent",
    what: 'searches running',
    fix: 'wait for one to answer before starting another',
  });
  app.post(SEARCH_PATH, { config: { auth: 'agent' } }, async (request) => {
    const agent = requireAgent(request);
    if (context.config.agents[agent]?.permissions.search !== true)
      throw new OpenLegionError(
        'MESH_FORBIDDEN',
        `agent "${agent}" may not search the web: add "search: true" under agents.${agent}.permissions in mesh.yaml`,
        { details: { agent, permission: 'search' } },
      );
    const body = parseRequest(searchRequestSchema, request.body);
    const query = checkedQuery(body.query);
    const release = slots.acquire(agent);
    try {
      const trace = request.headers[TRACE_HEADER];
      return await broker.search(
        {
          agent,
          requestId: request.id,
          traceId: typeof trace === 'string' && /^[\w.:@-]{1,100}$/.test(trace) ? trace : null,
        },
        {
          query,
          count: Math.min(body.count, context.config.search.max_results),
          freshness: body.freshness,
        },
      );
    } finally {
      release();
    }
  });
  app.get('/api/search/health', { config: { auth: 'operator' } }, async () => ({
    providers: broker.health(),
  }));
}
