import { OpenLegionError } from '@openlegion/protocol';
import { type FeatureContext, type HostFeature, serviceKey } from '../features/index.js';
import { AGENT_REGISTRY, type AgentRegistry } from '../registry/index.js';
import { registerAgentApiRoutes } from './agent-api-routes.js';
import {
  type AgentLaunchDeps,
  combineStartFailures,
  launchAgent,
  type StartProgress,
  throwIfStopped,
} from './agent-launch.js';
import {
  type AgentRuntime,
  agentInstanceName,
  type PreparedMesh,
  type RunningAgent,
} from './agent-runtime.js';
import { agentSelf } from './agent-self.js';

export interface FleetFeatureOptions {
  runtime: AgentRuntime;
  /**
   * Called once the mesh network exists and before any agent starts: the root listens on the
   * addresses agents will use (a taken port fails before any container starts).
   */
  beforeLaunch: (prepared: PreparedMesh) => Promise<void>;
  onProgress?: (progress: StartProgress) => void;
  /** More environment for an agent besides its id, mesh URL and token (the egress proxy's variables). */
  agentEnv?: (agent: string) => Record<string, string>;
}

/** What other features (health) use of the fleet. */
export interface Fleet {
  /**
   * Stop an agent (if it still runs) and start it again with a fresh token; resolves once it is
   * ready. AGENT_UNKNOWN for an agent not in mesh.yaml; before the fleet has started (there is no
   * mesh URL yet), an error saying so.
   */
  restart(agent: string): Promise<void>;
  /** Be told when an agent exits without being stopped (see AgentRuntime.onUnexpectedExit). */
  onAgentExit(listener: (agent: string) => void): void;
  /**
   * Start a temporary agent (fleet spawn) whose config is already in `config.agents` (see
   * config/temporary-agents.ts); resolves once it is ready, AGENT_START_FAILED when it is not.
   */
  startTemporary(agent: string): Promise<void>;
  /** Stop a temporary agent, revoke its tokens, delete its data and drop it from the registry. */
  removeTemporary(agent: string): Promise<void>;
}

/** The fleet's restarts and exits of its agents. */
export const FLEET = serviceKey<Fleet>('fleet');

/**
 * The agent API and the agents' lifecycle as a host feature: starts every agent of mesh.yaml
 * concurrently and waits until all are ready; stops them all (waiting for launches in flight, so
 * a Ctrl-C during start-up leaves nothing running) and removes the mesh network. Agents are
 * recorded in the registry (the `agents` feature).
 */
export function fleetFeature(options: FleetFeatureOptions): HostFeature {
  return {
    name: 'fleet',
    needs: [AGENT_REGISTRY],
    provides: [FLEET],
    build(context) {
      const registry = context.need(AGENT_REGISTRY);
      const fleet = buildFleet(options, context, registry);
      context.provide(FLEET, fleet.service);
      return {
        routes: (app) =>
          registerAgentApiRoutes(app, { registry, selfFor: (agent) => agentSelf(context, agent) }),
        start: fleet.start,
        stop: fleet.stop,
      };
    },
  };
}

function buildFleet(
  options: FleetFeatureOptions,
  context: FeatureContext,
  registry: AgentRegistry,
): { service: Fleet; start(): Promise<void>; stop(): Promise<void> } {
  const { runtime } = options;
  const { tokens, config, logger } = context;
  const launches: Promise<RunningAgent>[] = [];
  // Temporary agents' launches and removals in flight: a stop waits for them (and they leave the set when done).
  const temporaryWork = new Set<Promise<unknown>>();
  const tracked = <T>(work: Promise<T>): Promise<T> => {
    temporaryWork.add(work);
    void work.catch(() => {}).finally(() => temporaryWork.delete(work));
    return work;
  };
  let meshUrl: string | undefined;
  const launchDeps = (url: string): AgentLaunchDeps => ({
    context,
    runtime,
    registry,
    tokens,
    meshUrl: url,
    launches,
    onProgress: options.onProgress,
    agentEnv: options.agentEnv,
  });

  const service: Fleet = {
    onAgentExit: (listener) => runtime.onUnexpectedExit(listener),
    async restart(agent) {
      if (!meshUrl) throw new Error('the fleet restarts agents only once it has started');
      const url = meshUrl;
      if (!config.agents[agent]) {
        const agents = Object.keys(config.agents).join(', ');
        throw new OpenLegionError('AGENT_UNKNOWN', `no agent "${agent}" (agents: ${agents})`);
      }
      tokens.revoke(agent);
      await runtime
        .stop(agentInstanceName(config.mesh.name, agent))
        .catch((error: unknown) =>
          logger.warn({ err: error, agent }, 'stopping the agent before its restart failed'),
        );
      throwIfStopped(context);
      // A temporary agent removed while it was being stopped stays removed, and one restarted stays temporary.
      if (!config.agents[agent]) return;
      const temporary = registry.get(agent)?.temporary === true;
      await launchAgent(agent, { ...launchDeps(url), ...(temporary ? { temporary } : {}) });
    },
    async startTemporary(agent) {
      if (!meshUrl) throw new Error('the fleet starts temporary agents only once it has started');
      const url = meshUrl;
      await tracked(launchAgent(agent, { ...launchDeps(url), launches: [], temporary: true }));
    },
    removeTemporary: (agent) =>
      tracked(
        (async () => {
          const record = registry.get(agent);
          if (record && record.state !== 'stopped' && record.state !== 'failed') registry.markStopping(agent);
          await runtime
            .stop(agentInstanceName(config.mesh.name, agent))
            .catch((error: unknown) =>
              logger.warn({ err: error, agent }, 'stopping a temporary agent failed'),
            );
          tokens.revoke(agent);
          if (record && registry.get(agent)?.state !== 'failed') registry.markStopped(agent);
          await runtime
            .removeData?.(config.mesh.name, agent, context.dataDir)
            .catch((error: unknown) =>
              logger.warn({ err: error, agent }, "removing a temporary agent's data failed"),
            );
          // Gone from `openlegion status` once nothing of it is left.
          registry.forget(agent);
        })(),
      ),
  };

  return {
    service,
    async start() {
      const mesh = config.mesh.name;
      const removed = await runtime.cleanupLeftovers(mesh);
      if (removed.length > 0) logger.warn({ removed }, 'removed leftovers of an earlier run');
      throwIfStopped(context);
      const prepared = await runtime.prepare(mesh);
      throwIfStopped(context);
      await options.beforeLaunch(prepared);
      const url = prepared.agentMeshUrl(config.mesh.port);
      meshUrl = url;
      const results = await Promise.allSettled(
        Object.keys(config.agents).map((agent) => launchAgent(agent, launchDeps(url))),
      );
      const failures = results.flatMap((result) =>
        result.status === 'rejected' ? [result.reason as Error] : [],
      );
      if (failures.length > 0) throw combineStartFailures(failures);
      logger.info({ mesh, agents: results.length }, 'mesh ready');
    },
    async stop() {
      await Promise.allSettled([...launches, ...temporaryWork]);
      const records = registry.list();
      for (const agent of records) if (agent.state !== 'failed') registry.markStopping(agent.name);
      await runtime
        .stopAll()
        .catch((error: unknown) => logger.error({ err: error }, 'stopping agents failed'));
      for (const agent of records) {
        tokens.revoke(agent.name);
        if (agent.state !== 'failed') registry.markStopped(agent.name);
      }
      await runtime
        .teardown(config.mesh.name)
        .catch((error: unknown) => logger.error({ err: error }, 'teardown failed'));
    },
  };
}
