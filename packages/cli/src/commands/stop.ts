import { loadMeshConfig } from '@openlegion/host/config';
import { isOpenLegionError } from '@openlegion/protocol';
import type { CliOutput } from '../cli-output.js';
import { connectToHost, type HostConnection, requestDone } from '../host-connection.js';
import { AGENT_ENTRY } from '../workspace-paths.js';
import { removeSwarmHostAfterStop } from './start-swarm.js';
import { fetchStatus } from './status.js';

const STOP_WAIT_MS = 60_000;

/**
 * `openlegion stop`: ask the host to stop its agents and exit, then wait until it is gone. When no
 * host answers (it crashed, or was killed), remove what its run left behind instead.
 */
export async function stopMesh(configFile: string, output: CliOutput): Promise<number> {
  let host: HostConnection;
  let runtime: string | undefined;
  try {
    host = await connectToHost(configFile);
    runtime = (await fetchStatus(host)).runtime;
    await requestDone(host, 'POST', '/api/shutdown');
  } catch (error) {
    if (isOpenLegionError(error) && error.code === 'MESH_NOT_RUNNING') {
      return await cleanUpAfterCrash(configFile, output);
    }
    throw error;
  }
  output.out(`stopping mesh ${host.mesh}…\n`);
  const deadline = Date.now() + STOP_WAIT_MS;
  while (Date.now() < deadline) {
    try {
      await fetch(`${host.url}/healthz`, { signal: AbortSignal.timeout(1_000) });
    } catch {
      await removeSwarmHostAfterStop(configFile, runtime);
      output.out(`mesh ${host.mesh} stopped\n`);
      return 0;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  output.err(`openlegion: the host at ${host.url} still answers after ${STOP_WAIT_MS / 1000}s\n`);
  return 1;
}

async function cleanUpAfterCrash(configFile: string, output: CliOutput): Promise<number> {
  const loaded = await loadMeshConfig(configFile);
  const mesh = loaded.config.mesh.name;
  // Docker's client loads only here, where it is needed.
  const { removeCrashLeftovers } = await import('@openlegion/host/mesh');
  const removed = await removeCrashLeftovers({ loaded, agentEntry: AGENT_ENTRY });
  if (removed.length === 0) {
    output.out(`no host is running for mesh ${mesh}; nothing to stop\n`);
  } else {
    output.out(
      `no host was running for mesh ${mesh}; removed what its last run left: ${removed.join(', ')}\n`,
    );
  }
  return 0;
}
