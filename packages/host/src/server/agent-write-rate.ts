import { OpenLegionError } from '@openlegion/protocol';
import type { FeatureContext } from '../features/index.js';
import { TokenBuckets } from './token-buckets.js';

/** A durable commit costs a disk sync whatever its size: a tiny write counts as this much. */
export const MIN_WRITE_COST_BYTES = 1024;
/** How many seconds of the rate an agent may spend at once. */
export const WRITE_BURST_SECONDS = 4;

/**
 * How fast each agent may write to the blackboard and pub/sub (a token bucket per agent: the rate
 * refills it, a burst of {@link WRITE_BURST_SECONDS} seconds' worth fills it). Each write holds
 * the host's event loop while it is parsed, committed (a disk sync) and fanned out to watchers, so
 * one agent writing flat out would take the host from everyone else.
 */
export class AgentWriteRate {
  readonly #buckets: TokenBuckets;

  constructor(perSecond: number, now: () => number) {
    this.#buckets = new TokenBuckets(perSecond, perSecond * WRITE_BURST_SECONDS, now);
  }

  /** Spend `bytes` of `agent`'s rate, or throw 429 MESH_RATE_LIMITED saying when to retry. */
  take(agent: string, bytes: number): void {
    const cost = Math.max(bytes, MIN_WRITE_COST_BYTES);
    const retryAfterMs = this.#buckets.take(agent, cost);
    if (retryAfterMs === 0) return;
    const { perSecond, burst } = this.#buckets;
    throw new OpenLegionError(
      'MESH_RATE_LIMITED',
      `agent "${agent}" writes to the blackboard and pub/sub faster than limits.write_bytes_per_agent_per_s (${perSecond} bytes a second, bursts of ${burst}); retry in ${retryAfterMs} ms`,
      {
        details: {
          agent,
          bytes: cost,
          per_second: perSecond,
          retry_after_ms: retryAfterMs,
          field: 'limits.write_bytes_per_agent_per_s',
        },
      },
    );
  }
}

// Keyed by the host's mesh.db, like the stream slots: one rate per agent across its features.
const ratesByHost = new WeakMap<FeatureContext['db'], AgentWriteRate>();

/** The one write rate of the host whose features share `context.db`. */
export function writeRateOf(context: Pick<FeatureContext, 'config' | 'db' | 'clock'>): AgentWriteRate {
  let rate = ratesByHost.get(context.db);
  if (!rate) {
    rate = new AgentWriteRate(context.config.limits.write_bytes_per_agent_per_s, () => context.clock.now());
    ratesByHost.set(context.db, rate);
  }
  return rate;
}

/** What a request's write costs: its body's length as sent; a body of unknown length counts as `unknown` (its route's cap). */
export function writeCost(headers: Record<string, string | string[] | undefined>, unknown: number): number {
  const length = Number(headers['content-length']);
  return Number.isFinite(length) && length >= 0 && headers['content-length'] !== undefined ? length : unknown;
}
