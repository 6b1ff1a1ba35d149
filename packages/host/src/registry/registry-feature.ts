import { type HostFeature, serviceKey } from '../features/index.js';
import { AgentRegistry } from './agent-registry.js';
import { AGENT_STATE_CHANGED } from './registry-events.js';
import { REGISTRY_FEATURE, registryStore } from './registry-store.js';

/** The live record of this host run's agents (the fleet moves them; lanes, health, the operator read them). */
export const AGENT_REGISTRY = serviceKey<AgentRegistry>('registry.agents');

/**
 * The agent registry as a host feature of its own, apart from the fleet that starts the agents:
 * the lanes and the operator need it while they are built, and the fleet starts near the end of
 * the list (its agents stop first), so the registry cannot come from the fleet. It owns the
 * registry's migration track (`agents`, which held mesh.db's `user_version` before tracks).
 */
export function registryFeature(): HostFeature {
  return {
    name: REGISTRY_FEATURE.feature,
    migrations: REGISTRY_FEATURE.steps,
    adoptsUserVersion: true,
    provides: [AGENT_REGISTRY],
    build(context) {
      const registry = new AgentRegistry({ store: registryStore(context.db), clock: context.clock });
      // Every move of an agent is a fact on the host's bus, for whoever reacts to it.
      registry.onTransition((record) => context.events.emit(AGENT_STATE_CHANGED, record));
      context.provide(AGENT_REGISTRY, registry);
      return {};
    },
  };
}
