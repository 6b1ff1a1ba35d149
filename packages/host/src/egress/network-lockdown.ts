import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** Runs one firewall command (`iptables …`); injected in tests. */
export type FirewallCommand = (binary: string, args: readonly string[]) => Promise<void>;

const runCommand: FirewallCommand = async (binary, args) => {
  await promisify(execFile)(binary, [...args], { timeout: 10_000 });
};

/**
 * Lock the mesh bridge so the egress proxy is the only way out: on the host's INPUT for traffic
 * from the bridge, accept replies to the host's own connections (ESTABLISHED,RELATED), then the
 * host's mesh and egress ports, and drop the rest — a service this machine binds on 0.0.0.0 is
 * then out of the agents' reach. IPv4 always; IPv6 too where ip6tables works (a dual-stack
 * listener is reachable over the bridge's link-local address). Returns the function that removes
 * the rules again. Throws when the rules cannot be installed (not root, no iptables).
 */
export async function installNetworkLockdown(options: {
  bridge: string;
  ports: readonly number[];
  /** Per container (source address): connections open at once, and new ones a second (bursts). */
  perAgent?: { connections: number; newPerSecond: number; newBurst: number };
  run?: FirewallCommand;
}): Promise<() => Promise<void>> {
  const run = options.run ?? runCommand;
  const chain = `OL-IN-${options.bridge}`.slice(0, 28);
  const jump = ['INPUT', '-i', options.bridge, '-j', chain];
  const install = async (binary: string) => {
    await run(binary, ['-N', chain]).catch(() => run(binary, ['-F', chain]));
    await run(binary, ['-A', chain, '-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'ACCEPT']);
    if (options.perAgent)
      for (const rule of connectionLimits(options.bridge, options.ports, options.perAgent))
        await run(binary, ['-A', chain, ...rule]);
    for (const port of options.ports)
      await run(binary, ['-A', chain, '-p', 'tcp', '--dport', String(port), '-j', 'ACCEPT']);
    await run(binary, ['-A', chain, '-j', 'DROP']);
    await run(binary, ['-C', ...jump]).catch(() => run(binary, ['-I', ...jump]));
  };
  const remove = async (binary: string) => {
    await run(binary, ['-D', ...jump]).catch(() => {});
    await run(binary, ['-F', chain]).catch(() => {});
    await run(binary, ['-X', chain]).catch(() => {});
  };
  await install('iptables');
  const v6 = await install('ip6tables').then(
    () => true,
    () => false,
  );
  return async () => {
    await remove('iptables');
    if (v6) await remove('ip6tables');
  };
}

/** The kernel's per-rule ceilings for a rate and a burst (xt_hashlimit). */
const MAX_KERNEL_RATE = 10_000;

/**
 * A container opening connections flat out would have the host accept, parse and refuse each one on
 * its one event loop; the kernel refuses them instead (a TCP reset), before the host sees them:
 * past `connections` open at once from one address, or past `newPerSecond` new ones (bursts of
 * `newBurst`). Replies to the host's own connections were accepted above, so only SYNs count.
 */
function connectionLimits(
  bridge: string,
  ports: readonly number[],
  limits: { connections: number; newPerSecond: number; newBurst: number },
): string[][] {
  const newConnections = ['-p', 'tcp', '--syn', '-m', 'multiport', '--dports', ports.join(',')];
  const reset = ['-j', 'REJECT', '--reject-with', 'tcp-reset'];
  return [
    [...newConnections, '-m', 'connlimit', '--connlimit-above', String(limits.connections), ...reset],
    [
      ...newConnections,
      '-m',
      'hashlimit',
      '--hashlimit-above',
      `${Math.min(limits.newPerSecond, MAX_KERNEL_RATE)}/sec`,
      '--hashlimit-burst',
      String(Math.min(limits.newBurst, MAX_KERNEL_RATE)),
      '--hashlimit-mode',
      'srcip',
      // One table per mesh; the kernel takes names of at most 15 characters.
      '--hashlimit-name',
      `ol${bridge.replace(/^ol-/, '')}`.slice(0, 15),
      ...reset,
    ],
  ];
}
