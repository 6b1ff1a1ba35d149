import type { Clock } from '@openlegion/infra/clock';
import { OpenLegionError } from '@openlegion/protocol';
import type { FeatureContext } from '../features/index.js';
import { TokenBuckets } from './token-buckets.js';

/** How many seconds of the rate an agent may spend at once. */
export const REQUEST_BURST_SECONDS = 4;
/** Past its burst, how long a request may wait its turn before it is refused instead. */
export const REQUEST_QUEUE_MS = 1_000;

/**
 * How many requests each agent may make of the host a second, on its routes and through the egress
 * proxy together (a token bucket per agent, bursts of {@link REQUEST_BURST_SECONDS} seconds'
 * worth). Past the burst a request waits its turn, before its body is read (as nginx's limit_req
 * does), for up to {@link REQUEST_QUEUE_MS}; past that it is refused. Every request costs the
 * host's one event loop something before any route's own limit applies, so an agent sending flat
 * out is paced to its rate instead of taking the loop from the other agents and the operator, and
 * an honest burst (a browser loading a page) is slowed, not failed.
 */
export class AgentRequestRate {
  readonly #buckets: TokenBuckets;
  readonly #clock: Pick<Clock, 'now' | 'sleep'>;

  constructor(perSecond: number, clock: Pick<Clock, 'now' | 'sleep'>) {
    this.#buckets = new TokenBuckets(perSecond, perSecond * REQUEST_BURST_SECONDS, () => clock.now());
    this.#clock = clock;
  }

  /**
   * Count one request of `agent`: resolves when it may go on (at once within the burst, else at its
   * turn), or with the refusal (429 MESH_RATE_LIMITED) when its turn is further than the queue.
   */
  async admit(agent: string): Promise<OpenLegionError | undefined> {
    const reservation = this.#buckets.reserve(agent, 1, REQUEST_QUEUE_MS);
    if (reservation.ok) {
      if (reservation.waitMs > 0) await this.#clock.sleep(reservation.waitMs);
      return undefined;
    }
    const { perSecond, burst } = this.#buckets;
    const { retryAfterMs } = reservation;
    return new OpenLegionError(
      'MESH_RATE_LIMITED',
      `agent "${agent}" sends the host more than limits.requests_per_agent_per_s (${perSecond} requests a second, bursts of ${burst}, then a second's worth waiting); retry in ${retryAfterMs} ms`,
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
    rate = new AgentRequestRate(context.config.limits.requests_per_agent_per_s, context.clock);
    ratesByHost.set(context.db, rate);
  }
  return rate;
}
