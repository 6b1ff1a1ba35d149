import type { ChatEvent } from '@openlegion/protocol';
import { serviceKey } from '../features/index.js';
import type { LaneItem, LaneRequest, LaneSource } from './lane-item.js';
import type { Enqueued } from './lane-queue.js';

/** What other features (operator, channels, cron, messaging, workflows) use of the lanes. */
export interface Lanes {
  enqueue(request: LaneRequest): Promise<Enqueued>;
  /** The item's events as they stream, until it settles (see followItem). */
  follow(item: LaneItem): AsyncGenerator<ChatEvent>;
  cancel(id: number): void;
  interrupt(agent: string): void;
  /** How many items wait in an agent's lane (a free heartbeat probe). */
  queued(agent: string): number;
  /** Where finished items of a source go (cron records them, channels send them); one handler a source. */
  deliverTo(source: LaneSource, handler: (item: LaneItem) => Promise<void>): void;
  /** Where an agent's turn learns how many events wait for it (pub/sub registers itself); one source. */
  countPendingEventsWith(count: (agent: string) => number): void;
  /** The item of an idempotency key (a workflow step's try, to pick its run up after a restart). */
  byKey(key: string): LaneItem | undefined;
  /** The item an agent's call was made under, by its trace id (a workflow step's cost). */
  byTrace(traceId: string, agent: string): LaneItem | undefined;
}

/** The agents' lanes: the one way work reaches an agent. */
export const LANES = serviceKey<Lanes>('lanes');
