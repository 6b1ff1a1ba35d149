import type { CliOutput } from '../cli-output.js';
import { errorFromResponse, type HostConnection } from '../host-connection.js';

const STOP_WAIT_MS = 60_000;

/** `openlegion stop`: ask the host to stop its agents and exit, then wait until it is gone. */
export async function stopMesh(host: HostConnection, output: CliOutput): Promise<number> {
  const response = await host.request('POST', '/api/shutdown');
  if (!response.ok) throw await errorFromResponse(response);
  output.out(`stopping mesh ${host.mesh}…\n`);
  const deadline = Date.now() + STOP_WAIT_MS;
  while (Date.now() < deadline) {
    try {
      await fetch(`${host.url}/healthz`, { signal: AbortSignal.timeout(1_000) });
    } catch {
      output.out(`mesh ${host.mesh} stopped\n`);
      return 0;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  output.err(`openlegion: the host at ${host.url} still answers after ${STOP_WAIT_MS / 1000}s\n`);
  return 1;
}
