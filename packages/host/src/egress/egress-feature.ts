import { OpenLegionError } from '@openlegion/protocol';
import { type FeatureContext, type HostFeature, serviceKey } from '../features/index.js';
import type { PreparedMesh } from '../fleet/index.js';
import { REQUEST_BURST_SECONDS, requestRateOf } from '../server/index.js';
import { EGRESS_DECIDED } from './egress-events.js';
import type { EgressDecision } from './egress-policy.js';
import { type Dialer, EgressProxy } from './egress-proxy.js';
import { type FirewallCommand, installNetworkLockdown } from './network-lockdown.js';

/** The mesh network's lockdown, as `openlegion status` shows it. */
export type NetworkLock = 'locked' | 'unlocked' | 'none';

/** The egress proxy and the network lockdown, as the host and the credentials route use them. */
export interface Egress {
  /**
   * Listen where the agents reach the host, at the egress port; with a bridge (docker), lock the
   * mesh network so the host's mesh and egress ports are all an agent reaches on this machine.
   * Throws MESH_NETWORK_UNLOCKED when the lockdown cannot be installed and the operator has not
   * allowed an unlocked network.
   */
  open(prepared: PreparedMesh, bridge: string | undefined): Promise<void>;
  /** The egress policy's decision for `agent` reaching `host:port` (the same the proxy makes). */
  decide(agent: string, host: string, port: number): Promise<EgressDecision>;
  /** The proxy variables of an agent's environment, with its proxy token (never its mesh token). */
  agentEnv(agent: string): Record<string, string>;
  /** The lockdown's state once the proxy is open; undefined before. */
  networkLock(): NetworkLock | undefined;
}

export interface EgressFeatureOptions {
  /** `openlegion start --allow-unlocked-network`: start even if the lockdown cannot be installed. */
  allowUnlockedNetwork?: boolean | undefined;
  /** Runs the firewall commands (injected in tests). */
  firewall?: FirewallCommand;
  /** Injected in tests, so no packet leaves for an address under test. */
  dial?: Dialer;
}

/** The egress proxy, as the composition root and the credentials feature use it. */
export const EGRESS = serviceKey<Egress>('egress');

/** The egress proxy and network lockdown as a host feature (they stop after the agents). */
export function egressFeature(options: EgressFeatureOptions): HostFeature {
  return {
    name: 'egress',
    provides: [EGRESS],
    build(context) {
      const egress = openEgress(options, context);
      context.provide(EGRESS, egress.service);
      return { stop: egress.stop };
    },
  };
}

function openEgress(
  options: EgressFeatureOptions,
  given: FeatureContext,
): { service: Egress; stop(): Promise<void> } {
  const { config } = given;
  let proxyUrl: URL | undefined;
  let unlock: (() => Promise<void>) | undefined;
  let lock: NetworkLock | undefined;
  const requests = requestRateOf(given);
  const proxy = new EgressProxy({
    identify: (token) => given.tokens.identifyProxy(token),
    allowlist: (agent) => config.agents[agent]?.permissions.egress ?? [],
    ports: (agent) => config.agents[agent]?.permissions.egress_ports ?? [],
    logger: given.logger.child({ component: 'egress' }),
    onDecision: (decision) => given.events.emit(EGRESS_DECIDED, decision),
    rateLimited: async (agent) => (await requests.admit(agent))?.message,
    now: () => given.clock.now(),
    ...(options.dial ? { dial: options.dial } : {}),
  });
  const service: Egress = {
    async open(prepared, bridge) {
      const { mesh, runtime } = config;
      const wanted = mesh.egress_port ?? mesh.port + 1;
      const port = await proxy
        .listen(prepared.hostBindAddresses, wanted)
        .catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EADDRINUSE') throw error;
          throw new OpenLegionError(
            'MESH_PORT_IN_USE',
            `the egress proxy's port ${wanted} is taken (mesh.egress_port; default mesh.port + 1): free it or set another`,
            { details: { port: wanted } },
          );
        });
      proxyUrl = new URL(prepared.agentMeshUrl(port));
      if (!bridge) {
        lock = 'none';
        return;
      }
      try {
        unlock = await installNetworkLockdown({
          bridge,
          ports: [mesh.port, port],
          perAgent: {
            connections: config.limits.connections_per_agent,
            newPerSecond: config.limits.requests_per_agent_per_s,
            newBurst: config.limits.requests_per_agent_per_s * REQUEST_BURST_SECONDS,
          },
          ...(options.firewall ? { run: options.firewall } : {}),
        });
        lock = 'locked';
      } catch (error) {
        const why = (error as Error).message.split('\n')[0];
        if (!options.allowUnlockedNetwork && !runtime.allow_unlocked_network)
          throw new OpenLegionError(
            'MESH_NETWORK_UNLOCKED',
            `the network lockdown could not be installed on ${bridge} (${why}): without it agents reach every service this machine binds on 0.0.0.0. Run the host as root with iptables, or start anyway with \`openlegion start --allow-unlocked-network\` or \`runtime.allow_unlocked_network: true\` in mesh.yaml`,
            { cause: error, details: { bridge } },
          );
        lock = 'unlocked';
        given.warn(
          `network lockdown not installed on ${bridge} (${why}): agents can reach services this machine binds on 0.0.0.0 (allowed by ${options.allowUnlockedNetwork ? '--allow-unlocked-network' : 'runtime.allow_unlocked_network'}); run the host as root with iptables to lock it`,
        );
      }
    },
    decide: (agent, host, port) => proxy.decide(agent, host, port),
    agentEnv(agent): Record<string, string> {
      const token = given.tokens.proxyTokenFor(agent);
      if (!proxyUrl || token === undefined) return {};
      const url = new URL(proxyUrl);
      url.username = agent;
      url.password = token;
      const proxyVar = url.toString().replace(/\/$/, '');
      const direct = [proxyUrl.hostname, 'localhost', '127.0.0.1'].join(',');
      return {
        HTTP_PROXY: proxyVar,
        HTTPS_PROXY: proxyVar,
        http_proxy: proxyVar,
        https_proxy: proxyVar,
        NO_PROXY: direct,
        no_proxy: direct,
      };
    },
    networkLock: () => lock,
  };
  return {
    service,
    async stop() {
      await unlock?.();
      await proxy.close();
    },
  };
}
