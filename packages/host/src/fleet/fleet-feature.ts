import { OpenLegionError } from '@openlegion/protocol';
import type { TokenRegistry } from '../auth/index.js';
import type { FeatureContext, HostFeature } from '../features/index.js';
import { AGENT_STATE_CHANGED, AgentRegistry, REGISTRY_FEATURE, registryStore } from '../registry/index.js';
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
  tokens: TokenRegistry;
  /**
   * Called once the mesh network exists and before any agent starts: the root listens on the
   * addresses agents will use (a taken port fails before any container starts).
   */
  beforeLaunch: (prepared: PreparedMesh) => Promise<void>;
  onProgress?: (progress: StartProgress) => void;
  /** More environment for an agent besides its id, mesh URL and token (the egress proxy's variables). */
  agentEnv?: (agent: string) => Record<string, string>;
}

/** The fleet as a host feature: the registry, the agent API and the agents' lifecycle. */
export interface FleetFeature extends HostFeature {
  /** The registry of this host run; exists once the host's database is open. */
  registry(): AgentRegistry;
  /** Stop an agent (if it still runs) and start it again with a fresh token; resolves once it is ready. */
  restart(agent: string): Promise<void>;
  /** Be told when an agent exits without being stopped (see AgentRuntime.onUnexpectedExit). */
  onAgentExit(listener: (agent: string) => void): void;
}

/**
 * Starts every agent of mesh.yaml concurrently and waits until all are ready; stops them all
 * (waiting for launches in flight, so a Ctrl-C during start-up leaves nothing running) and
 * removes the mesh network.
 */
export function fleetFeature(options: FleetFeatureOptions): FleetFeature {
  const { runtime, tokens } = options;
  const launches: Promise<RunningAgent>[] = [];
  let registry: AgentRegistry | undefined;
  let context: FeatureContext | undefined;
  let meshUrl: string | undefined;
  const attach = (given: FeatureContext): AgentRegistry => {
    context = given;
    if (!registry) {
      registry = new AgentRegistry({ store: registryStore(given.db), clock: given.clock });
      // Every move of an agent is a fact on the host's bus, for whoever reacts to it.
      registry.onTransition((record) => given.events.emit(AGENT_STATE_CHANGED, record));
    }
    return registry;
  };
  const launchDeps = (given: FeatureContext, agents: AgentRegistry, url: string): AgentLaunchDeps => ({
    context: given,
    runtime,
    registry: agents,
    tokens,
    meshUrl: url,
    launches,
    onProgress: options.onProgress,
    agentEnv: options.agentEnv,
  });
  const currentRegistry = (): AgentRegistry => {
    if (!registry) throw new Error('the fleet registry is used before the host database is open');
    return registry;
  };

  return {
    name: REGISTRY_FEATURE.feature,
    migrations: REGISTRY_FEATURE.steps,
    adoptsUserVersion: true,
    registry: currentRegistry,
    onAgentExit: (listener) => runtime.onUnexpectedExit(listener),
    init: (given) => void attach(given),
    routes(app, given) {
      registerAgentApiRoutes(app, { registry: currentRegistry, selfFor: (agent) => agentSelf(given, agent) });
    },
    async start(given) {
      const agents = attach(given);
      const mesh = given.config.mesh.name;
      const removed = await runtime.cleanupLeftovers(mesh);
      if (removed.length > 0) given.logger.warn({ removed }, 'removed leftovers of an earlier run');
      throwIfStopped(given);
      const prepared = await runtime.prepare(mesh);
      throwIfStopped(given);
      await options.beforeLaunch(prepared);
      const url = prepared.agentMeshUrl(given.config.mesh.port);
      meshUrl = url;
      const results = await Promise.allSettled(
        Object.keys(given.config.agents).map((agent) => launchAgent(agent, launchDeps(given, agents, url))),
      );
      const failures = results.flatMap((result) =>
        result.status === 'rejected' ? [result.reason as Error] : [],
      );
      if (failures.length > 0) throw combineStartFailures(failures);
      given.logger.info({ mesh, agents: results.length }, 'mesh ready');
    },
    async restart(agent) {
      if (!context || !meshUrl) throw new Error('the fleet restarts agents only once it has started');
      const given = context;
      if (!given.config.agents[agent]) {
        const agents = Object.keys(given.config.agents).join(', ');
        throw new OpenLegionError('AGENT_UNKNOWN', `no agent "${agent}" (agents: ${agents})`);
      }
      tokens.revoke(agent);
      await runtime
        .stop(agentInstanceName(given.config.mesh.name, agent))
        .catch((error: unknown) =>
          given.logger.warn({ err: error, agent }, 'stopping the agent before its restart failed'),
        );
      throwIfStopped(given);
      await launchAgent(agent, launchDeps(given, currentRegistry(), meshUrl));
    },
    async stop() {
      if (!context) return;
      const { logger, config } = context;
      await Promise.allSettled(launches);
      const records = registry?.list() ?? [];
      for (const agent of records) if (agent.state !== 'failed') registry?.markStopping(agent.name);
      await runtime
        .stopAll()
        .catch((error: unknown) => logger.error({ err: error }, 'stopping agents failed'));
      for (const agent of records) {
        tokens.revoke(agent.name);
        if (agent.state !== 'failed') registry?.markStopped(agent.name);
      }
      await runtime
        .teardown(config.mesh.name)
        .catch((error: unknown) => logger.error({ err: error }, 'teardown failed'));
    },
  };
}
