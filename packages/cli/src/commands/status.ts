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
    const restarts = agent.restarts > 0 ? `  restarted ${agent.restarts}×` : '';
    output.out(`  ${agent.name.padEnd(width)}  ${agent.state.padEnd(8)}  ${agent.model}${restarts}\n`);
    if (agent.state === 'failed' && agent.last_error)
      output.out(`  ${' '.repeat(width)}  ${agent.last_error}\n`);
  }
  for (const warning of status.warnings) output.out(`warning: ${warning}\n`);
}
