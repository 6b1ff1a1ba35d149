import { OpenLegionError } from '@openlegion/protocol';
import type { HostFeature } from './host-feature.js';

/**
 * The order to build and start features in: every feature after the providers of what it needs,
 * otherwise in list order. A need no feature provides, a service two provide, or a circle of needs
 * is a start-up error that names the features and the services.
 */
export function featureOrder(features: readonly HostFeature[]): HostFeature[] {
  const providers = providersOf(features);
  const needed = new Map<HostFeature, HostFeature[]>();
  for (const feature of features) {
    const from = (feature.needs ?? []).map((key) => {
      const provider = providers.get(key.name);
      if (!provider)
        throw new OpenLegionError(
          'INTERNAL',
          `feature "${feature.name}" needs "${key.name}", which no feature provides`,
        );
      return provider;
    });
    needed.set(
      feature,
      [...new Set(from)].filter((provider) => provider !== feature),
    );
  }
  const ordered: HostFeature[] = [];
  const placed = new Set<HostFeature>();
  while (ordered.length < features.length) {
    const next = features.find(
      (feature) => !placed.has(feature) && (needed.get(feature) ?? []).every((need) => placed.has(need)),
    );
    if (!next)
      throw circleError(
        features.filter((feature) => !placed.has(feature)),
        needed,
      );
    ordered.push(next);
    placed.add(next);
  }
  return ordered;
}

function providersOf(features: readonly HostFeature[]): Map<string, HostFeature> {
  const providers = new Map<string, HostFeature>();
  for (const feature of features)
    for (const key of feature.provides ?? []) {
      const other = providers.get(key.name);
      if (other)
        throw new OpenLegionError(
          'INTERNAL',
          `features "${other.name}" and "${feature.name}" both provide "${key.name}"`,
        );
      providers.set(key.name, feature);
    }
  return providers;
}

/** The features left over all wait on each other: walk their needs until one comes round again. */
function circleError(left: readonly HostFeature[], needed: ReadonlyMap<HostFeature, HostFeature[]>): Error {
  const chain: HostFeature[] = [];
  let at = left[0];
  while (at && !chain.includes(at)) {
    chain.push(at);
    at = (needed.get(at) ?? []).find((need) => left.includes(need));
  }
  const circle = at ? [...chain.slice(chain.indexOf(at)), at] : chain;
  return new OpenLegionError(
    'INTERNAL',
    `features need each other in a circle: ${circle.map(({ name }) => name).join(' -> ')}`,
    { details: { circle: circle.map(({ name }) => name) } },
  );
}
