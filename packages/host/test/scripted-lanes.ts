import type { Clock } from '@openlegion/infra/clock';
import { OpenLegionError } from '@openlegion/protocol';
import type { HostFeature } from '../src/features/index.js';
import {
  type Enqueued,
  type LaneItem,
  LaneRepository,
  type LaneRequest,
  type LaneSource,
} from '../src/lanes/index.js';
import { LANE_MIGRATIONS } from '../src/lanes/lane-migrations.js';
import type { WorkflowLanes } from '../src/workflows/index.js';

/** How the double answers an item: a reply after `afterMs`, a failure, or nothing until the test says. */
export type ScriptedReply =
  | { text: string; afterMs?: number }
  | { error: string; message?: string; afterMs?: number }
  | 'hold';

export interface ScriptedLanes extends HostFeature, WorkflowLanes {
  /** Every enqueue call, in order (a repeated idempotency key too). */
  readonly requests: LaneRequest[];
  /** Ids of the items cancelled. */
  readonly cancelled: number[];
  /** The most items that were running at once. */
  readonly maxRunning: () => number;
  /** Pub/sub registers its count of pending events here; scripted turns are told of none. */
  countPendingEventsWith(count: (agent: string) => number): void;
  items(): LaneItem[];
  running(): LaneItem[];
  /** End a running item now. */
  finish(id: number, reply: Exclude<ScriptedReply, 'hold'>): Promise<void>;
  /** An agent that refuses work (AGENT_NOT_READY), as the real lanes do for a stopped agent. */
  stopAgent(agent: string): void;
  startAgent(agent: string): void;
}

/**
 * A double of the lanes for workflow tests: items live in the real lane table of mesh.db (so a
 * restart over the same file finds them, and a running one runs again, as with the real lanes),
 * and each is answered at once as `respond` says, on the fake clock. Items of one agent are not
 * serialized: a test sees exactly what the engine hands over at once.
 */
export function scriptedLanes(
  respond: (item: LaneItem) => ScriptedReply = () => ({ text: 'ok' }),
): ScriptedLanes {
  let repo: LaneRepository | undefined;
  let clock: Clock | undefined;
  const requests: LaneRequest[] = [];
  const cancelled: number[] = [];
  const stopped = new Set<string>();
  const deliverers = new Map<LaneSource, (item: LaneItem) => Promise<void>>();
  let maxRunning = 0;
  const current = () => {
    if (!repo || !clock) throw new Error('scripted lanes used before init');
    return { repo, clock };
  };
  const running = () =>
    current()
      .repo.recent(10_000)
      .filter((item) => item.state === 'running');

  const finish = async (id: number, reply: Exclude<ScriptedReply, 'hold'>) => {
    const { repo: lanes, clock: time } = current();
    if (lanes.get(id)?.state !== 'running') return;
    const item =
      'text' in reply
        ? lanes.finish(id, { state: 'done', now: time.now(), text: reply.text })
        : lanes.finish(id, {
            state: 'failed',
            now: time.now(),
            code: reply.error,
            message: reply.message ?? reply.error,
          });
    await deliverers.get(item.source)?.(item);
    lanes.markDelivered(id, time.now());
  };

  const run = (queued: LaneItem) => {
    const { repo: lanes, clock: time } = current();
    const item = lanes.markRunning(queued.id, time.now());
    maxRunning = Math.max(maxRunning, running().length);
    const reply = respond(item);
    if (reply === 'hold') return;
    time.setTimeout(() => void finish(item.id, reply), reply.afterMs ?? 0);
  };

  return {
    name: 'lanes',
    migrations: LANE_MIGRATIONS,
    init(context) {
      repo = new LaneRepository(context.db);
      clock = context.clock;
    },
    start() {
      // As the real lanes do after a restart: what was running runs again.
      const { repo: lanes } = current();
      lanes.requeueRunning();
      for (const agent of lanes.agentsWithWork()) for (const item of lanes.queued(agent)) run(item);
    },
    requests,
    cancelled,
    maxRunning: () => maxRunning,
    async enqueue(request): Promise<Enqueued> {
      requests.push(request);
      const { repo: lanes, clock: time } = current();
      if (stopped.has(request.agent))
        throw new OpenLegionError('AGENT_NOT_READY', `agent "${request.agent}" is stopped, not taking work`);
      const now = time.now();
      const { item, created } = lanes.insert({
        agent: request.agent,
        kind: request.kind ?? 'chat',
        mode: 'followup',
        conversationId: request.conversationId ?? 'default',
        message: request.message,
        source: request.source,
        sourceRef: request.sourceRef ?? null,
        idempotencyKey: request.idempotencyKey ?? `key-${requests.length}`,
        traceId: request.traceId ?? 'trace',
        notBefore: now,
        createdAt: now,
      });
      if (!created) return { item, outcome: 'existing' };
      run(item);
      return { item: lanes.require(item.id), outcome: 'queued' };
    },
    deliverTo: (source, handler) => void deliverers.set(source, handler),
    // Scripted turns are told of no pending events.
    countPendingEventsWith: () => {},
    cancel(id) {
      const { repo: lanes, clock: time } = current();
      const state = lanes.get(id)?.state;
      if (state !== 'queued' && state !== 'running') return;
      cancelled.push(id);
      lanes.finish(id, { state: 'cancelled', now: time.now() });
    },
    byKey: (key) => current().repo.byKey(key),
    byTrace: (traceId, agent) => current().repo.byTrace(traceId, agent),
    items: () => current().repo.recent(10_000).reverse(),
    running,
    finish,
    stopAgent: (agent) => void stopped.add(agent),
    startAgent: (agent) => void stopped.delete(agent),
  };
}
