/**
 * A typed name for a service one feature provides and others need. The type travels with the key,
 * so `context.need(COST_METER)` is a `CostMeter` without a cast; the name is what start-up errors
 * and the start order's messages show.
 *
 * @example
 * export const COST_METER = serviceKey<CostMeter>('costs.meter');
 */
export interface ServiceKey<T> {
  readonly kind: 'service';
  readonly name: string;
  /** Never set: it only carries the service's type. */
  readonly type?: T;
}

/** A fact one feature announces and others react to, with its payload's type. */
export interface EventKey<T> {
  readonly kind: 'event';
  readonly name: string;
  /** Never set: it only carries the payload's type. */
  readonly type?: T;
}

/** A key for a service; make it once, in the providing feature's `index.ts`. */
export function serviceKey<T>(name: string): ServiceKey<T> {
  return { kind: 'service', name };
}

/** A key for an event; make it once, in the announcing feature's `index.ts`. */
export function eventKey<T>(name: string): EventKey<T> {
  return { kind: 'event', name };
}
