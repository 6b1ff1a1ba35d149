import { existsSync, statSync } from 'node:fs';
import { OpenLegionError, resolveModel } from '@openlegion/protocol';
import type { TokenRegistry } from '../auth/index.js';
import type { FeatureContext } from '../features/index.js';
import type { AgentRegistry } from '../registry/index.js';
import { type AgentRuntime, agentInstanceName, type RunningAgent } from './agent-runtime.js';

/** One line of start-up progress per agent and phase. */
export interface StartProgress {
  agent: string;
  phase: 'starting' | 'ready' | 'failed';
  /** Milliseconds since this agent's start began. */
  ms: number;
}

export interface AgentLaunchDeps {
  context: FeatureContext;
  runtime: AgentRuntime;
  registry: AgentRegistry;
  tokens: TokenRegistry;
  /** Where the agent reaches the host (`MESH_URL`). */
  meshUrl: string;
  /** Every launch is added here, so a stop during start-up can wait for launches in flight. */
  launches: Promise<RunningAgent>[];
  onProgress?: ((progress: StartProgress) => void) | undefined;
  /** More environment for an agent (the egress proxy's variables, with its proxy token), after its tokens are minted. */
  agentEnv?: ((agent: string) => Record<string, string>) | undefined;
  /** A temporary agent (fleet spawn): so marked in the registry and `openlegion status`. */
  temporary?: boolean;
}

const LAST_LOG_LINES = 20;

/**
 * Start one agent with a fresh token and wait until it reports ready. A failure marks it failed
 * and becomes AGENT_START_FAILED with the agent's last log lines.
 */
export async function launchAgent(agent: string, deps: AgentLaunchDeps): Promise<RunningAgent> {
  const { context, runtime, registry } = deps;
  const { config } = context;
  const began = context.clock.now();
  const progress = (phase: StartProgress['phase']) =>
    deps.onProgress?.({ agent, phase, ms: context.clock.now() - began });
  const agentConfig = config.agents[agent];
  const model = resolveModel(config, agentConfig?.model ?? 'default');
  throwIfStopped(context);
  const token = deps.tokens.mint(agent);
  registry.register({
    name: agent,
    runtime: runtime.kind,
    model,
    ...(deps.temporary ? { temporary: true } : {}),
  });
  progress('starting');
  try {
    const launch = runtime.start({
      mesh: config.mesh.name,
      agent,
      env: { ...deps.agentEnv?.(agent), AGENT_ID: agent, MESH_URL: deps.meshUrl, MESH_TOKEN: token },
      resources: { ...config.runtime.resources, ...agentConfig?.resources },
      image: config.runtime.image,
      dataDir: context.dataDir,
      skillsDir: fleetSkillsDir(context),
      signal: context.signal,
    });
    deps.launches.push(launch);
    const running = await launch;
    registry.setLocation(agent, { url: running.url, container: running.name });
    await registry.waitForReady(agent, config.runtime.ready_timeout_ms, context.signal);
    progress('ready');
    return running;
  } catch (error) {
    progress('failed');
    registry.markFailed(agent, error instanceof Error ? error : new Error(String(error)));
    const logs = await runtime
      .logs(agentInstanceName(config.mesh.name, agent), LAST_LOG_LINES)
      .catch(() => '');
    throw new OpenLegionError(
      'AGENT_START_FAILED',
      `agent "${agent}" did not become ready within ${config.runtime.ready_timeout_ms / 1000}s: ${
        (error as Error).message
      }${logs.trim() ? `\n--- last log lines of ${agent} ---\n${logs.trimEnd()}` : ''}`,
      { cause: error },
    );
  }
}

/** The fleet's `skills/` folder beside mesh.yaml, when there is one (docs/tools.md). */
function fleetSkillsDir(context: FeatureContext): string | undefined {
  const dir = context.resolvePath('skills');
  return existsSync(dir) && statSync(dir).isDirectory() ? dir : undefined;
}

/** A stop during start-up (Ctrl-C) ends the start: nothing more is created after it. */
export function throwIfStopped(context: FeatureContext): void {
  if (context.signal.aborted) {
    throw new OpenLegionError(
      'AGENT_START_FAILED',
      `mesh ${context.config.mesh.name} was stopped during start`,
    );
  }
}

/** One error for several agents that failed to start. */
export function combineStartFailures(failures: Error[]): Error {
  if (failures.length === 1 && failures[0]) return failures[0];
  return new OpenLegionError(
    'AGENT_START_FAILED',
    `${failures.length} agents did not become ready:\n${failures.map((failure) => failure.message).join('\n')}`,
    { cause: failures[0] },
  );
}
