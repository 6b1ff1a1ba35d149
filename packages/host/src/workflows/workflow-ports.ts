import type { OperatorNotice } from '@openlegion/protocol';
import type { Enqueued, LaneItem, LaneRequest, LaneSource } from '../lanes/index.js';

/**
 * What the workflow engine needs of the lanes. The lanes feature (`Lanes`) is one as it is; tests
 * pass a double that completes items as scripted.
 */
export interface WorkflowLanes {
  enqueue(request: LaneRequest): Promise<Enqueued>;
  deliverTo(source: LaneSource, handler: (item: LaneItem) => Promise<void>): void;
  cancel(id: number): void;
  /** The lane item of a step's try, by its idempotency key (to pick a run up after a restart). */
  byKey(key: string): LaneItem | undefined;
  /** The item an agent's call was made under, by its trace id (to add the call's cost to its step). */
  byTrace?(traceId: string, agent: string): LaneItem | undefined;
}

/**
 * What workflows need of the blackboard: `${blackboard:key}` in tasks and `save_to`. `by` names
 * the writer (`workflow:<name>`), as the blackboard records who wrote an entry.
 */
export interface WorkflowBlackboard {
  get(key: string): unknown | undefined;
  put(key: string, value: unknown, by: string): void;
}

/** A pub/sub event as a topic trigger receives it; `id` (when the bus gives one) makes a run start once per event. */
export interface WorkflowEvent {
  topic: string;
  payload: unknown;
  id?: string | number;
}

/** What workflows need of pub/sub: topic triggers and `on_complete.publish`. */
export interface WorkflowEvents {
  publish(topic: string, payload: unknown, by: string): void;
  /** Call `onEvent` for each event on a topic matching `pattern`; returns the unsubscribe function. */
  subscribe(pattern: string, onEvent: (event: WorkflowEvent) => void): () => void;
}

/** Tells the operator (REPL, channels): `on_complete.notify` texts and approvals that wait. */
export type WorkflowNotify = (notice: OperatorNotice) => void | Promise<void>;
