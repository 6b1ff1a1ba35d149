import { randomUUID } from 'node:crypto';
import type { Clock } from '@openlegion/infra/clock';
import { type MeshConfig, OpenLegionError } from '@openlegion/protocol';
import type { LaneDispatcher } from './lane-dispatcher.js';
import type { LaneItem, LaneRequest } from './lane-item.js';
import type { LaneRepository } from './lane-repository.js';

export interface LaneQueueDeps {
  config: MeshConfig;
  repo: LaneRepository;
  dispatcher: LaneDispatcher;
  clock: Clock;
  /** The agent's lifecycle state, if it has one yet (work for a starting agent waits for it). */
  agentState(agent: string): string | undefined;
  /** Deliver a steer to the turn running in a conversation; false when none is running. */
  steer(agent: string, conversationId: string, message: string): Promise<boolean>;
  /** Told of a new item before it can start (traces). */
  onQueued?(item: LaneItem): void;
}

/** What enqueueing did with the message. */
export interface Enqueued {
  item: LaneItem;
  /** `queued`: a new item; `merged`: added to a waiting `collect` item; `steered`: given to the running turn; `existing`: the idempotency key was seen before. */
  outcome: 'queued' | 'merged' | 'steered' | 'existing';
}

/**
 * Puts work into an agent's lane according to its mode: `followup` queues it; `steer` hands it to
 * the running turn of the same conversation (queued as a followup when the agent is idle);
 * `collect` merges messages that arrive within the debounce window into one turn; `interrupt`
 * ends the running turn and runs this next. A full lane refuses with MESH_QUEUE_FULL.
 */
export async function enqueue(deps: LaneQueueDeps, request: LaneRequest): Promise<Enqueued> {
  const { config, repo, dispatcher, clock } = deps;
  if (!config.agents[request.agent]) {
    const agents = Object.keys(config.agents);
    throw new OpenLegionError('AGENT_UNKNOWN', `no agent "${request.agent}" (agents: ${agents.join(', ')})`, {
      details: { agents },
    });
  }
  const state = deps.agentState(request.agent);
  if (state === 'failed' || state === 'stopping' || state === 'stopped') {
    throw new OpenLegionError('AGENT_NOT_READY', `agent "${request.agent}" is ${state}, not taking work`, {
      details: { agent: request.agent, state },
    });
  }
  const key = request.idempotencyKey ?? randomUUID();
  const seen = repo.byKey(key);
  if (seen) return { item: seen, outcome: 'existing' };
  const now = clock.now();
  const mode = request.mode ?? 'followup';
  const conversationId = request.conversationId ?? 'default';
  const fields = {
    agent: request.agent,
    kind: request.kind ?? 'chat',
    mode,
    conversationId,
    message: request.message,
    source: request.source,
    sourceRef: request.sourceRef ?? null,
    idempotencyKey: key,
    traceId: request.traceId ?? randomUUID(),
    notBefore: now,
    createdAt: now,
  } as const;

  if (mode === 'steer') {
    const running = dispatcher.runningOn(request.agent);
    if (
      running?.conversationId === conversationId &&
      (await deps.steer(request.agent, conversationId, request.message))
    ) {
      const { item } = repo.insert(fields);
      return { item: repo.finish(item.id, { state: 'steered', now }), outcome: 'steered' };
    }
  }
  if (mode === 'collect') {
    const open = repo.openCollect(request.agent, conversationId, now);
    if (open) {
      repo.collect(open.id, request.message, now + config.lanes.collect_debounce_ms);
      dispatcher.kick(request.agent);
      return { item: repo.require(open.id), outcome: 'merged' };
    }
  }
  const waiting = repo.queuedCount(request.agent);
  if (waiting >= config.lanes.queue_cap) {
    throw new OpenLegionError(
      'MESH_QUEUE_FULL',
      `the lane of ${request.agent} holds ${waiting} items (lanes.queue_cap ${config.lanes.queue_cap}); try again later`,
      { details: { agent: request.agent, queued: waiting } },
    );
  }
  const notBefore = mode === 'collect' ? now + config.lanes.collect_debounce_ms : now;
  const { item } = repo.insert({ ...fields, notBefore });
  deps.onQueued?.(item);
  if (mode === 'interrupt') dispatcher.interrupt(request.agent);
  dispatcher.kick(request.agent);
  return { item, outcome: 'queued' };
}
