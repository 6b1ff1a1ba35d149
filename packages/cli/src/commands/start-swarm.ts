import { loadMeshConfig } from '@openlegion/host/config';
import type { CliOutput } from '../cli-output.js';
import type { StartOptions } from './start-options.js';

/** Set in the host's own container, where `openlegion start` runs the host itself. */
const HOST_CONTAINER_ENV = 'OPENLEGION_HOST_CONTAINER';

/**
 * `openlegion start` with runtime swarm, outside the host's container: start that container (the
 * host process cannot reach overlay networks) and return once its host reports ready. Undefined
 * when the mesh does not run on swarm, or when this already is the host's container.
 */
export async function startInSwarmContainer(
  options: StartOptions,
  output: CliOutput,
): Promise<number | undefined> {
  if (process.env[HOST_CONTAINER_ENV]) return undefined;
  const loaded = await loadMeshConfig(options.config);
  if ((options.runtime ?? loaded.config.runtime.kind) !== 'swarm') return undefined;
  const { startSwarmHost } = await import('@openlegion/host/mesh');
  const agents = Object.keys(loaded.config.agents).length;
  const name = await startSwarmHost({
    loaded,
    env: process.env,
    // Agents start in parallel; the host itself and the first image pull get a minute more.
    readyTimeoutMs: loaded.config.runtime.ready_timeout_ms * Math.max(1, Math.ceil(agents / 4)) + 60_000,
    say: output.out,
  });
  output.out(`the host runs in container ${name}; \`openlegion stop\` stops it and its agents\n`);
  return 0;
}

/** After the host stopped: remove its container and network when the mesh ran on swarm. */
export async function removeSwarmHostAfterStop(
  configFile: string,
  runtime: string | undefined,
): Promise<void> {
  if (runtime !== 'swarm') return;
  const loaded = await loadMeshConfig(configFile);
  const { removeSwarmHost } = await import('@openlegion/host/mesh');
  await removeSwarmHost(loaded.config.mesh.name);
}
