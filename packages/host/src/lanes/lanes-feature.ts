import type { HostFeature } from '../features/index.js';
import { TEMPORARY_AGENT_LEFT } from '../fleet/index.js';
import { AGENT_REGISTRY } from '../registry/index.js';
import { type AgentClient, createAgentClient } from './agent-client.js';
import { type AgentTurnDeps, runAgentTurn, steerAgent } from './agent-turn.js';
import { followItem } from './follow-item.js';
import { LaneDispatcher } from './lane-dispatcher.js';
import {
  LANE_ITEM_CHANGED,
  LANE_TOOL_CALLED,
  LANE_TURN_RECALLED,
  type LaneItemPhase,
} from './lane-events.js';
import type { LaneItem, LaneSource } from './lane-item.js';
import { LANE_MIGRATIONS } from './lane-migrations.js';
import { enqueue } from './lane-queue.js';
import { LaneRepository } from './lane-repository.js';
import { registerLaneRoutes } from './lane-routes.js';
import { LANES, type Lanes } from './lanes.js';

export interface LanesFeatureOptions {
  /** How the lanes call agents (default: over HTTP). */
  agentClient?: AgentClient;
}

/**
 * One persisted FIFO per agent in mesh.db: serial within an agent, parallel across agents. Work
 * queued before a host restart runs after it; results not yet delivered are delivered once.
 */
export function lanesFeature(options: LanesFeatureOptions = {}): HostFeature {
  return {
    name: 'lanes',
    migrations: LANE_MIGRATIONS,
    needs: [AGENT_REGISTRY],
    provides: [LANES],
    build(context) {
      const registry = context.need(AGENT_REGISTRY);
      let pendingEvents: ((agent: string) => number) | undefined;
      const turns: AgentTurnDeps = {
        registry,
        tokens: context.tokens,
        agentClient: options.agentClient ?? createAgentClient(),
      };
      // Where finished results go, by source; the CLI follows its items live and needs none.
      const deliverers = new Map<LaneSource, (item: LaneItem) => Promise<void>>();
      const deliver = async (item: LaneItem) => deliverers.get(item.source)?.(item);
      const repo = new LaneRepository(context.db);
      // Each move of an item is a fact on the host's bus (traces record it).
      const onItem = (item: LaneItem, phase: LaneItemPhase) =>
        context.events.emit(LANE_ITEM_CHANGED, { item, phase });
      const dispatcher = new LaneDispatcher({
        repo,
        clock: context.clock,
        logger: context.logger.child({ component: 'lanes' }),
        isReady: (agent) => registry.get(agent)?.state === 'ready',
        onItem,
        runTurn: (item, emit, signal) =>
          runAgentTurn(
            turns,
            item,
            (event) => {
              if (event.type === 'recall') context.events.emit(LANE_TURN_RECALLED, { item, recall: event });
              else if (event.type === 'tool_start' || event.type === 'tool_result')
                context.events.emit(LANE_TOOL_CALLED, { item, event });
              emit(event);
            },
            signal,
            {
              messages: repo.queuedCount(item.agent),
              events: pendingEvents?.(item.agent) ?? 0,
            },
          ),
        deliver,
        watchdogMs: context.config.lanes.watchdog_ms,
      });

      const lanes: Lanes = {
        enqueue: async (request) => {
          const enqueued = await enqueue(
            {
              config: context.config,
              repo,
              dispatcher,
              clock: context.clock,
              agentState: (agent) => registry.get(agent)?.state,
              steer: (...args) => steerAgent(turns, ...args),
              onQueued: (item) => onItem(item, 'queued'),
            },
            request,
          );
          if (enqueued.outcome === 'steered') onItem(enqueued.item, 'settled');
          return enqueued;
        },
        follow: (item) => followItem(dispatcher, repo, item),
        cancel: (id) => dispatcher.cancel(id),
        interrupt: (agent) => dispatcher.interrupt(agent),
        queued: (agent) => repo.queuedCount(agent),
        deliverTo: (source, handler) => void deliverers.set(source, handler),
        countPendingEventsWith: (count) => {
          pendingEvents = count;
        },
        byKey: (key) => repo.byKey(key),
        byTrace: (traceId, agent) => repo.byTrace(traceId, agent),
      };
      context.provide(LANES, lanes);

      let stopRegistryWatch = () => {};
      // A temporary agent that ended takes no more work: what still waits for it (an event's
      // wake-up, a message) is cancelled rather than left for an agent that will never be ready.
      const stopLeftWatch = context.events.on(TEMPORARY_AGENT_LEFT, ({ name }) => {
        for (const item of repo.queued(name)) dispatcher.cancel(item.id);
      });
      return {
        routes: (app) => registerLaneRoutes(app, lanes, repo),
        async start() {
          const requeued = repo.requeueRunning();
          if (requeued > 0)
            context.logger.warn({ requeued }, 'work that was running when the host stopped runs again');
          for (const item of repo.undelivered()) {
            await deliver(item);
            repo.markDelivered(item.id, context.clock.now());
          }
          // Agents become ready after this feature starts: each one's lane starts with it.
          stopRegistryWatch = registry.onTransition((record) => {
            if (record.state === 'ready') dispatcher.agentReady(record.name);
          });
          for (const agent of repo.agentsWithWork()) dispatcher.kick(agent);
        },
        async stop() {
          stopRegistryWatch();
          stopLeftWatch();
          await dispatcher.stop();
        },
      };
    },
  };
}
