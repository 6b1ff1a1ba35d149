import type { Logger } from 'pino';
import type { BlackboardStore } from '../blackboard/index.js';
import type { WorkflowBlackboard } from './workflow-ports.js';

/** Workflows read and write the mesh's blackboard (`${blackboard:key}`, `save_to`). */
export function meshBlackboard(store: BlackboardStore, logger: Logger): WorkflowBlackboard {
  return {
    get: (key) => store.get(key)?.value,
    put: (key, value, by) => {
      store
        .put(key, value, by)
        .catch((error: unknown) =>
          logger.error({ err: error, key }, 'a workflow could not write the blackboard'),
        );
    },
  };
}
