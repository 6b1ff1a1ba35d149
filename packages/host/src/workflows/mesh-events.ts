import type { Logger } from 'pino';
import { type Pubsub, topicMatcher } from '../pubsub/index.js';
import type { WorkflowEvents } from './workflow-ports.js';

/** Workflows are triggered by and publish to the mesh's pub/sub. */
export function meshEvents(pubsub: Pubsub, logger: Logger): WorkflowEvents {
  return {
    // A refused publish (a payload past limits.pubsub_payload_bytes) is logged, never left unhandled.
    publish: (topic, payload, by) => {
      pubsub
        .publish(topic, payload, by)
        .catch((error: unknown) => logger.error({ err: error, topic, by }, 'a workflow could not publish'));
    },
    subscribe: (pattern, onEvent) => {
      const matches = topicMatcher(pattern);
      return pubsub.listen((event) => {
        if (matches(event.topic)) onEvent({ topic: event.topic, payload: event.payload, id: event.id });
      });
    },
  };
}
