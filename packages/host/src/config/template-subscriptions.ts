import type { MeshConfig } from '@openlegion/protocol';
import { globMatcher } from '../permissions/index.js';

/**
 * A template's `subscriptions` each within its own `permissions.pubsub.subscribe` (the same check
 * an agent's standing subscriptions get at start): found when mesh.yaml is loaded, at the line,
 * rather than when an agent spawns from it and would be deaf to what its template promises.
 */
export function templateSubscriptionProblems(
  config: MeshConfig,
): { field: (string | number)[]; message: string }[] {
  return Object.entries(config.templates).flatMap(([template, { subscriptions, permissions }]) => {
    const granted = globMatcher(permissions.pubsub.subscribe);
    return subscriptions.flatMap(({ pattern }, index) =>
      granted(pattern)
        ? []
        : [
            {
              field: ['templates', template, 'subscriptions', index, 'pattern'],
              message: `"${pattern}" is not within templates.${template}.permissions.pubsub.subscribe; add it there`,
            },
          ],
    );
  });
}
