import { OpenLegionError } from '@openlegion/protocol';
import type { FeatureContext } from '../features/index.js';
import { TokenBuckets } from './token-buckets.js';

/** How many seconds of the rate an agent may spend at once. */
export const REQUEST_BURST_SECONDS = 4;

/**
 * How many requests each agent may make of the host a second, on its routes and through the egress
 * proxy together (a token bucket per agent, bursts of {@link REQUEST_BURST_SECONDS} seconds'
 * worth). Every request costs the host's one event loop something before any route's own limit is
 * reached (parse, authenticate, answer), so an agent sending flat out would slow every other
 * agent and the operator; past its rate it is refused before its body is read.
 */
export class AgentRequestRate {
  readonly #buckets: TokenBuckets;

  constructor(perSecond: number, now: () => number) {
    this.#buckets = new TokenBuckets(perSecond, perSecond * REQUEST_BURST_SECONDS, now);
  }

  /** Count one request of `agent`: undefined when it may go on, else the refusal (429 MESH_RATE_LIMITED). */
  refusal(agent: string): OpenLegionError | undefined {
    const retryAfterMs = this.#buckets.take(agent);
    if (retryAfterMs === 0) return undefined;
    const { perSecond, burst } = this.#buckets;
    return new OpenLegionError(
      'MESH_RATE_LIMITED',
      `agent "${agent}" sends the host more than limits.requests_per_agent_per_s (${perSecond} requests a second, bursts of ${burst}); retry in ${retryAfterMs} ms`,
      {
        details: {
          agent,
          per_second: perSecond,
          retry_after_ms: retryAfterMs,
          field: 'limits.requests_per_agent_per_s',
        },
      },
    );
  }
}

// Keyed by the host's mesh.db, like the write rate: one rate per agent across the app and the proxy.
const ratesByHost = new WeakMap<FeatureContext['db'], AgentRequestRate>();

/** The one request rate of the host whose features share `context.db`. */
export function requestRateOf(context: Pick<FeatureContext, 'config' | 'db' | 'clock'>): AgentRequestRate {
  let rate = ratesByHost.get(context.db);
  if (!rate) {
    rate = new AgentRequestRate(context.config.limits.requests_per_agent_per_s, () => context.clock.now());
    ratesByHost.set(context.db, rate);
  }
  return rate;
}
