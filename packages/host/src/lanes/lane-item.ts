import type { LaneMode } from '@openlegion/protocol';

// The modes are the operator API's (the CLI offers them); the host's folders keep importing them here.
export { LANE_MODES, type LaneMode } from '@openlegion/protocol';

/** Where work came from, so its result goes back there. */
export const LANE_SOURCES = [
  'cli',
  'dashboard',
  'channel',
  'cron',
  'workflow',
  'agent',
  'pubsub',
  'spawn',
] as const;
export type LaneSource = (typeof LANE_SOURCES)[number];

export type LaneItemState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled' | 'steered';

/** One unit of work in an agent's lane, as persisted in mesh.db. */
export interface LaneItem {
  id: number;
  agent: string;
  /** `heartbeat`: the agent probes for free first and calls its LLM only when something is actionable. */
  kind: 'chat' | 'task' | 'heartbeat';
  mode: LaneMode;
  conversationId: string;
  message: string;
  source: LaneSource;
  /** The source's own reference: a channel chat id, a cron job id, a workflow step, an agent name. */
  sourceRef: string | null;
  /** Unique per piece of work: enqueueing it again returns the same item, never a second one. */
  idempotencyKey: string;
  traceId: string;
  state: LaneItemState;
  /** Not dispatched before this time (ms); `collect` items wait out their debounce window. */
  notBefore: number;
  attempts: number;
  resultText: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** When the result was handed to its source; a result is delivered at most once. */
  deliveredAt: number | null;
}

/** What a caller gives to enqueue work. */
export interface LaneRequest {
  agent: string;
  message: string;
  kind?: LaneItem['kind'];
  mode?: LaneMode;
  conversationId?: string;
  source: LaneSource;
  sourceRef?: string;
  idempotencyKey?: string;
  traceId?: string;
}
