import type { MeshConfig } from '@openlegion/protocol';
import type { EventBus } from '../features/index.js';
import { TEMPORARY_AGENT_JOINED, TEMPORARY_AGENT_LEFT } from '../fleet/index.js';
import type { MeshPermissions } from '../permissions/index.js';
import type { PubsubStore } from './pubsub-store.js';

export interface TemporaryAgentSubscriptionsDeps {
  events: Pick<EventBus, 'on'>;
  config: MeshConfig;
  permissions: MeshPermissions;
  store: Pick<PubsubStore, 'subscribe' | 'unsubscribeAgent'>;
  now: () => number;
  warn: (message: string) => void;
}

/**
 * The standing subscriptions of temporary agents (fleet spawn): a template's `subscriptions` are
 * made for each agent started from it as it joins (before it starts, so it hears every event
 * published from then on), and every subscription of the agent (its template's and those it made
 * itself) is deleted when it leaves, so nothing is kept or woken for an agent that is gone.
 * Returns the function that stops following.
 */
export function followTemporaryAgents(deps: TemporaryAgentSubscriptionsDeps): () => void {
  const stopJoined = deps.events.on(TEMPORARY_AGENT_JOINED, ({ name, template }) => {
    const subscriptions = Object.hasOwn(deps.config.agents, name)
      ? (deps.config.agents[name]?.subscriptions ?? [])
      : [];
    for (const { pattern, delivery } of subscriptions) {
      // mesh.yaml's validation refuses a template subscription outside its permissions; checked
      // again as the route checks an agent's own request.
      if (!deps.permissions.can(name, 'pubsub.subscribe', pattern)) {
        deps.warn(
          `temporary agent "${name}" was not subscribed to "${pattern}": it is not within templates.${template}.permissions.pubsub.subscribe`,
        );
        continue;
      }
      deps.store.subscribe(name, pattern, delivery, deps.now());
    }
  });
  const stopLeft = deps.events.on(TEMPORARY_AGENT_LEFT, ({ name }) => deps.store.unsubscribeAgent(name));
  return () => {
    stopJoined();
    stopLeft();
  };
}
