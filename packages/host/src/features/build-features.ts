import { OpenLegionError } from '@openlegion/protocol';
import { featureOrder } from './feature-order.js';
import type { BuiltFeature, FeatureContext, HostFeature } from './host-feature.js';
import type { ServiceKey } from './service-key.js';

/** What every feature shares; `need` and `provide` are made per feature from its declarations. */
export type SharedContext = Omit<FeatureContext, 'need' | 'provide'>;

/**
 * Build every feature, providers before the features that need them, and return them in that
 * order (the start order). Each gets the context with `need`/`provide` bound to what it declares,
 * so a service it does not declare is an error while it is built, not a surprise at run time.
 */
export function buildFeatures(
  features: readonly HostFeature[],
  shared: SharedContext,
  /** Filled with what the features provide, by key name (the composition root reads it). */
  services = new Map<string, unknown>(),
): BuiltFeature[] {
  return featureOrder(features).map((feature) => {
    const context = featureContext(feature, shared, services);
    if (feature.build) {
      const parts = feature.build(context);
      for (const key of feature.provides ?? [])
        if (!services.has(key.name))
          throw new OpenLegionError('INTERNAL', `feature "${feature.name}" did not provide "${key.name}"`);
      return { name: feature.name, ...parts };
    }
    return legacyFeature(feature, context);
  });
}

function featureContext(
  feature: HostFeature,
  shared: SharedContext,
  services: Map<string, unknown>,
): FeatureContext {
  const declares = (keys: readonly ServiceKey<unknown>[] | undefined, key: ServiceKey<unknown>) =>
    (keys ?? []).some(({ name }) => name === key.name);
  return {
    ...shared,
    need<T>(key: ServiceKey<T>): T {
      if (!declares(feature.needs, key) || !services.has(key.name))
        throw new OpenLegionError(
          'INTERNAL',
          `feature "${feature.name}" uses "${key.name}" without declaring it in its needs`,
        );
      // Stored under this key's name by its provider's `provide<T>`, so it is a T.
      return services.get(key.name) as T;
    },
    provide<T>(key: ServiceKey<T>, service: T): void {
      if (!declares(feature.provides, key) || services.has(key.name))
        throw new OpenLegionError(
          'INTERNAL',
          `feature "${feature.name}" provides "${key.name}" without declaring it, or twice`,
        );
      services.set(key.name, service);
    },
  };
}

/** The adapter for a feature in the earlier shape (init, then routes/start/stop with the context). */
function legacyFeature(feature: HostFeature, context: FeatureContext): BuiltFeature {
  feature.init?.(context);
  return {
    name: feature.name,
    ...(feature.routes ? { routes: (app) => feature.routes?.(app, context) } : {}),
    ...(feature.start ? { start: () => feature.start?.(context) } : {}),
    ...(feature.stop ? { stop: () => feature.stop?.() } : {}),
  };
}
