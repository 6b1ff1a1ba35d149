import path from 'node:path';
import Dockerode from 'dockerode';
import type { LoadedMeshConfig } from '../config/index.js';
import type { AgentRuntime, AgentRuntimeKind } from './agent-runtime.js';
import { probeDockerEngine } from './docker-engine-probe.js';
import { DockerRuntime } from './docker-runtime.js';
import { ProcessRuntime } from './process-runtime.js';
import { removeSwarmLeftovers } from './swarm-engine.js';
import { HOST_CONTAINER_ENV, SwarmRuntime } from './swarm-runtime.js';

export interface RuntimeChoice {
  runtime: AgentRuntimeKind;
  loaded: LoadedMeshConfig;
  /** The agent entry for the process runtime (`@openlegion/agent/main`). */
  agentEntry: string;
  /** The host's environment (swarm: the name of the host's container). */
  env?: NodeJS.ProcessEnv | undefined;
}

/** The runtime a mesh runs its agents on. */
export function createRuntime(choice: RuntimeChoice): AgentRuntime {
  if (choice.runtime === 'docker') return new DockerRuntime();
  if (choice.runtime === 'swarm') {
    return new SwarmRuntime({
      agents: Object.keys(choice.loaded.config.agents),
      hostContainer: choice.env?.[HOST_CONTAINER_ENV],
      registry: choice.loaded.config.runtime.registry,
    });
  }
  return new ProcessRuntime({
    agentEntry: choice.agentEntry,
    runDir: path.join(choice.loaded.dataDir, 'run'),
  });
}

/**
 * Remove what a crashed host of this mesh left running (containers and network, or agent
 * processes), for `openlegion stop` when no host answers. Agents' data volumes are kept.
 * Looks in both runtimes: the crashed run may have used `--runtime` to override mesh.yaml.
 */
export async function removeCrashLeftovers(options: Omit<RuntimeChoice, 'runtime'>): Promise<string[]> {
  const mesh = options.loaded.config.mesh.name;
  const removed = await createRuntime({ ...options, runtime: 'process' }).cleanupLeftovers(mesh);
  if ((await probeDockerEngine()).reachable) {
    // Swarm first: removing its services stops their task containers before the docker sweep.
    const docker = new Dockerode();
    const swarm = ((await docker.info()) as { Swarm?: { ControlAvailable?: boolean } }).Swarm;
    if (swarm?.ControlAvailable) removed.push(...(await removeSwarmLeftovers(docker, mesh, { host: true })));
    removed.push(...(await new DockerRuntime({ docker }).cleanupLeftovers(mesh)));
  }
  return removed;
}
