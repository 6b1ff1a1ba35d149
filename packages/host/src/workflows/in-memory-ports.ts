import { topicMatcher } from '../pubsub/index.js';
import type { WorkflowBlackboard, WorkflowEvent, WorkflowEvents } from './workflow-ports.js';

/**
 * A blackboard in a Map: for tests, and for a host built without the blackboard feature (then
 * `save_to` and `${blackboard:key}` work within the host's lifetime only).
 */
export function inMemoryBlackboard(): WorkflowBlackboard & {
  entries: Map<string, { value: unknown; by: string }>;
} {
  const entries = new Map<string, { value: unknown; by: string }>();
  return {
    entries,
    get: (key) => entries.get(key)?.value,
    put: (key, value, by) => void entries.set(key, { value, by }),
  };
}

/**
 * Pub/sub in memory: `*` matches one dot-separated part of a topic, `**` (or a trailing `>`) the
 * rest. Events are handed to subscribers synchronously, in publish order.
 */
export function inMemoryEvents(): WorkflowEvents & { published: (WorkflowEvent & { by: string })[] } {
  const subscribers = new Set<{
    matches: (topic: string) => boolean;
    onEvent: (event: WorkflowEvent) => void;
  }>();
  const published: (WorkflowEvent & { by: string })[] = [];
  return {
    published,
    publish(topic, payload, by) {
      const event = { topic, payload, id: published.length + 1 };
      published.push({ ...event, by });
      for (const subscriber of [...subscribers]) if (subscriber.matches(topic)) subscriber.onEvent(event);
    },
    subscribe(pattern, onEvent) {
      const subscriber = { matches: topicMatcher(pattern), onEvent };
      subscribers.add(subscriber);
      return () => void subscribers.delete(subscriber);
    },
  };
}
