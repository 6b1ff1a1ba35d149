import { type MeshStatus, meshStatusSchema } from '@openlegion/protocol';
import type { CliOutput } from '../cli-output.js';
import { type HostConnection, requestJson } from '../host-connection.js';

/** What each lockdown state means to the operator. */
const NETWORK_LINES: Record<NonNullable<MeshStatus['network']>, string> = {
  locked: "locked (agents reach only the host's mesh and egress ports)",
  unlocked:
    'UNLOCKED (allowed by --allow-unlocked-network or runtime.allow_unlocked_network): agents can reach services bound on 0.0.0.0',
  none: 'not isolated (process runtime: agents are plain processes)',
};

export async function fetchStatus(host: HostConnection): Promise<MeshStatus> {
  return requestJson(host, 'GET', '/api/status', meshStatusSchema);
}

export function printStatus(status: MeshStatus, output: CliOutput): void {
  output.out(`mesh ${status.mesh} · ${status.url} · runtime ${status.runtime} · host pid ${status.pid}\n`);
  const width = Math.max(5, ...status.agents.map((agent) => agent.name.length));
  for (const agent of status.agents) {
    const restarts = agent.restarts > 0 ? `  restarted ${agent.restarts}×` : '';
    const temporary = agent.temporary ? '  (temporary)' : '';
    output.out(
      `  ${agent.name.padEnd(width)}  ${agent.state.padEnd(8)}  ${agent.model}${restarts}${temporary}\n`,
    );
    if (agent.state === 'failed' && agent.last_error)
      output.out(`  ${' '.repeat(width)}  ${agent.last_error}\n`);
  }
  // Swarm has no bridge to lock: each agent's own internal overlay is its isolation.
  if (status.runtime === 'swarm' && status.network === 'none')
    output.out('  network: one internal overlay per agent, shared only with the host (swarm)\n');
  else if (status.network) output.out(`  network: ${NETWORK_LINES[status.network]}\n`);
  for (const warning of status.warnings) output.out(`warning: ${warning}\n`);
}
