import { OpenLegionError } from '@openlegion/protocol';
import type { TokenRegistry } from '../auth/index.js';
import type { FeatureContext, HostFeature } from '../features/index.js';
import type { PreparedMesh } from '../fleet/index.js';
import { type EgressDecision, EgressProxy } from './egress-proxy.js';
import { installNetworkLockdown } from './network-lockdown.js';

export interface EgressFeature extends HostFeature {
  /**
   * Listen where the agents reach the host, at the egress port; with a bridge (docker), lock the
   * mesh network so the host's mesh and egress ports are all an agent reaches on this machine.
   */
  open(prepared: PreparedMesh, bridge: string | undefined): Promise<void>;
  /** The egress policy's decision for `agent` reaching `host:port` (the same the proxy makes). */
  decide(agent: string, host: string, port: number): Promise<EgressDecision>;
  /** The proxy variables of an agent's environment (its own token is its proxy password). */
  agentEnv(agent: string, token: string): Record<string, string>;
}

/** The egress proxy and network lockdown as a host feature (they stop after the agents). */
export function egressFeature(options: {
  tokens: TokenRegistry;
  onDecision?: (decision: EgressDecision) => void;
}): EgressFeature {
  let context: FeatureContext | undefined;
  let proxy: EgressProxy | undefined;
  let proxyUrl: URL | undefined;
  let unlock: (() => Promise<void>) | undefined;
  return {
    name: 'egress',
    init(given) {
      context = given;
      const { config } = given;
      proxy = new EgressProxy({
        identify: (token) => options.tokens.identify(token),
        allowlist: (agent) => config.agents[agent]?.permissions.egress ?? [],
        logger: given.logger.child({ component: 'egress' }),
        ...(options.onDecision ? { onDecision: options.onDecision } : {}),
      });
    },
    async open(prepared, bridge) {
      if (!context || !proxy) throw new Error('egress is opened before the host database is open');
      const { mesh } = context.config;
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
      if (!bridge) return;
      try {
        unlock = await installNetworkLockdown({ bridge, ports: [mesh.port, port] });
      } catch (error) {
        context.warn(
          `network lockdown not installed on ${bridge} (${(error as Error).message.split('\n')[0]}): agents can reach services this machine binds on 0.0.0.0; run the host as root with iptables to lock it`,
        );
      }
    },
    decide(agent, host, port) {
      if (!proxy) throw new Error('egress is used before the host database is open');
      return proxy.decide(agent, host, port);
    },
    agentEnv(agent, token): Record<string, string> {
      if (!proxyUrl) return {};
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
    async stop() {
      await unlock?.();
      await proxy?.close();
    },
  };
}
