import { type MeshStatus, meshStatusSchema } from '@openlegion/protocol';
import type { CliOutput } from '../cli-output.js';
import { errorFromResponse, type HostConnection } from '../host-connection.js';

export async function fetchStatus(host: HostConnection): Promise<MeshStatus> {
  const response = await host.request('GET', '/api/status');
  if (!response.ok) throw await errorFromResponse(response);
  return meshStatusSchema.parse(await response.json());
}

export function printStatus(status: MeshStatus, output: CliOutput): void {
  output.out(`mesh ${status.mesh} · ${status.url} · runtime ${status.runtime} · host pid ${status.pid}\n`);
  const width = Math.max(5, ...status.agents.map((agent) => agent.name.length));
  for (const agent of status.agents) {
    output.out(`  ${agent.name.padEnd(width)}  ${agent.state.padEnd(8)}  ${agent.model}\n`);
  }
}
