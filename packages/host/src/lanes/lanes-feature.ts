import type { FeatureContext, HostFeature } from '../features/index.js';
import type { AgentRegistry } from '../registry/index.js';
import { type AgentTurnDeps, runAgentTurn, steerAgent } from './agent-turn.js';
import { followItem } from './follow-item.js';
import { LaneDispatcher } from './lane-dispatcher.js';
import { LANE_ITEM_CHANGED, type LaneItemPhase } from './lane-events.js';
import type { LaneItem, LaneSource } from './lane-item.js';
import { LANE_MIGRATIONS } from './lane-migrations.js';
import { enqueue } from './lane-queue.js';
import { LaneRepository } from './lane-repository.js';
import { registerLaneRoutes } from './lane-routes.js';
import type { Lanes } from './lanes.js';

export type LanesFeatureOptions = AgentTurnDeps;

/**
 * One persisted FIFO per agent in mesh.db: serial within an agent, parallel across agents. Work
 * queued before a host restart runs after it; results not yet delivered are delivered once.
 */
export function lanesFeature(options: LanesFeatureOptions): HostFeature & Lanes {
  let state:
    | {
        repo: LaneRepository;
        dispatcher: LaneDispatcher;
        context: FeatureContext;
        onItem: (item: LaneItem, phase: LaneItemPhase) => void;
      }
    | undefined;
  let stopRegistryWatch = () => {};
  // Where finished results go, by source; the CLI follows its items live and needs none.
  const deliverers = new Map<LaneSource, (item: LaneItem) => Promise<void>>();
  const deliver = async (item: LaneItem) => deliverers.get(item.source)?.(item);
  let pendingEvents = options.pendingEvents;
  const attach = (context: FeatureContext) => {
    if (state) return state;
    const repo = new LaneRepository(context.db);
    // Each move of an item is a fact on the host's bus (traces record it).
    const onItem = (item: LaneItem, phase: LaneItemPhase) =>
      context.events.emit(LANE_ITEM_CHANGED, { item, phase });
    const dispatcher = new LaneDispatcher({
      repo,
      clock: context.clock,
      logger: context.logger.child({ component: 'lanes' }),
      isReady: (agent) => options.registry().get(agent)?.state === 'ready',
      onItem,
      runTurn: (item, emit, signal) =>
        runAgentTurn(options, item, emit, signal, {
          messages: repo.queuedCount(item.agent),
          events: pendingEvents?.(item.agent) ?? 0,
        }),
      deliver,
      watchdogMs: context.config.lanes.watchdog_ms,
    });
    state = { repo, dispatcher, context, onItem };
    return state;
  };
  const current = () => {
    if (!state) throw new Error('the lanes are used before the host database is open');
    return state;
  };
  const registry = (): AgentRegistry => options.registry();

  const lanes: Lanes = {
    enqueue: async (request) => {
      const { repo, dispatcher, context, onItem } = current();
      const enqueued = await enqueue(
        {
          config: context.config,
          repo,
          dispatcher,
          clock: context.clock,
          agentState: (agent) => options.registry().get(agent)?.state,
          steer: (...args) => steerAgent(options, ...args),
          onQueued: (item) => onItem(item, 'queued'),
        },
        request,
      );
      if (enqueued.outcome === 'steered') onItem(enqueued.item, 'settled');
      return enqueued;
    },
    follow: (item) => followItem(current().dispatcher, current().repo, item),
    cancel: (id) => current().dispatcher.cancel(id),
    interrupt: (agent) => current().dispatcher.interrupt(agent),
    queued: (agent) => current().repo.queuedCount(agent),
    deliverTo: (source, handler) => void deliverers.set(source, handler),
    countPendingEventsWith: (count) => {
      pendingEvents = count;
    },
    registry,
    repository: () => current().repo,
    dispatcher: () => current().dispatcher,
  };

  return {
    ...lanes,
    name: 'lanes',
    migrations: LANE_MIGRATIONS,
    init: (context) => void attach(context),
    routes: (app) => registerLaneRoutes(app, lanes),
    async start(context) {
      const { repo, dispatcher } = attach(context);
      const requeued = repo.requeueRunning();
      if (requeued > 0)
        context.logger.warn({ requeued }, 'work that was running when the host stopped runs again');
      for (const item of repo.undelivered()) {
        await deliver(item);
        repo.markDelivered(item.id, context.clock.now());
      }
      // Agents become ready after this feature starts: each one's lane starts with it.
      stopRegistryWatch = registry().onTransition((record) => {
        if (record.state === 'ready') dispatcher.agentReady(record.name);
      });
      for (const agent of repo.agentsWithWork()) dispatcher.kick(agent);
    },
    async stop() {
      stopRegistryWatch();
      await state?.dispatcher.stop();
    },
  };
}
