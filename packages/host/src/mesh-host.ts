import { systemClock } from '@openlegion/infra/clock';
import type { MeshStatus } from '@openlegion/protocol';
import { APPROVALS } from './approvals/index.js';
import { loadOrCreateOperatorToken, TokenRegistry } from './auth/index.js';
import { DASHBOARD_SESSIONS } from './dashboard/index.js';
import { EGRESS } from './egress/index.js';
import {
  type BuiltFeature,
  FeatureLifecycle,
  featureDatabase,
  type HostContext,
  OperatorNotices,
  openHostContext,
  resolveSecret,
  type ServiceKey,
  type SharedContext,
} from './features/index.js';
import { createRuntime, fleetFeature, meshBridgeName } from './fleet/index.js';
import { LANES } from './lanes/index.js';
import { meshFeatures } from './mesh-features.js';
import type { MeshHost, MeshHostOptions } from './mesh-host-options.js';
import { createChannelMesh } from './operator/index.js';
import { AGENT_REGISTRY, toAgentInfo } from './registry/index.js';
import { buildHostApp, DeferredListener, type HostRoute, requestRateOf } from './server/index.js';
import { hostSecrets } from './vault/index.js';
import { HOST_VERSION } from './version.js';

/** The composition root: the host's features in start order, one listener, one lifecycle. */
export function createMeshHost(options: MeshHostOptions): MeshHost {
  const { loaded, logger } = options;
  const { config } = loaded;
  const clock = options.clock ?? systemClock;
  const runtime = options.agentRuntime ?? createRuntime(options);
  const tokens = new TokenRegistry();
  const notices = new OperatorNotices(logger);
  const listener = new DeferredListener();
  const stopping = new AbortController();
  const startedAt = new Date(clock.now()).toISOString();
  const url = `http://${config.mesh.host}:${config.mesh.port}`;
  let requestShutdown = () => {};
  const shutdownRequested = new Promise<void>((resolve) => {
    requestShutdown = resolve;
  });
  const warnings: string[] = [];
  let context: SharedContext | undefined;
  let built: BuiltFeature[] = [];
  let service: HostContext['service'] | undefined;
  let operatorToken = '';
  let appServed: Promise<void> | undefined;
  const routes: HostRoute[] = [];

  /** A service of the started host's features (the fleet's start and the channels ask after it). */
  const hostService = <T>(key: ServiceKey<T>): T => {
    if (!service) throw new Error('the host has not started');
    return service(key);
  };

  const status = (): MeshStatus => {
    const network = service ? service(EGRESS).networkLock() : undefined;
    return {
      mesh: config.mesh.name,
      version: HOST_VERSION,
      pid: process.pid,
      url,
      started_at: startedAt,
      runtime: runtime.kind,
      agents: service ? service(AGENT_REGISTRY).list().map(toAgentInfo) : [],
      ...(network ? { network } : {}),
      warnings: [...warnings],
    };
  };

  const fleet = fleetFeature({
    runtime,
    onProgress: options.onProgress,
    beforeLaunch: async (prepared) => {
      await listener.listen(
        [...new Set([config.mesh.host, ...prepared.hostBindAddresses])],
        config.mesh.port,
      );
      logger.info(
        { mesh: config.mesh.name, addresses: prepared.hostBindAddresses, port: config.mesh.port },
        'host listening',
      );
      await hostService(EGRESS).open(
        prepared,
        runtime.kind === 'docker' ? meshBridgeName(config.mesh.name) : undefined,
      );
      // After the lockdown, so the agents' containers start ~70 ms sooner: loading fastify is CPU the
      // host has to spare while Docker starts them, and requests that come first wait for it.
      appServed = serveApp();
      // Nothing answers the agents without the app: the start fails now, with the reason.
      appServed.catch((error: unknown) => appFailed?.(error));
    },
    agentEnv: (agent) => hostService(EGRESS).agentEnv(agent),
  });
  const features = meshFeatures({
    version: HOST_VERSION,
    fleet,
    meshStatus: status,
    onShutdown: () => requestShutdown(),
    baseUrlOverrides: options.baseUrlOverrides,
    allowUnlockedNetwork: options.allowUnlockedNetwork,
  });
  const lifecycle = new FeatureLifecycle(logger);

  /** Fails the start when the app could not be built (set while starting). */
  let appFailed: ((error: unknown) => void) | undefined;

  /** fastify loads while the agents boot; requests that come first wait for it. */
  async function serveApp(): Promise<void> {
    if (!context) return;
    const app = await buildHostApp({
      logger,
      // The dashboard's session cookie signs the operator in too (loopback only, see dashboard/).
      auth: { tokens, operatorToken, sessions: service?.(DASHBOARD_SESSIONS) },
      requests: requestRateOf(context),
      features: built,
      routes,
    });
    await app.ready();
    listener.serve(app);
  }

  async function start(): Promise<MeshStatus> {
    try {
      const secrets = options.secrets ?? hostSecrets({ dataDir: loaded.dataDir, env: options.env });
      ({
        context,
        features: built,
        service,
      } = openHostContext({
        loaded,
        features,
        logger,
        clock,
        secrets,
        signal: stopping.signal,
        warnings,
        tokens,
        notices,
      }));
      operatorToken = await loadOrCreateOperatorToken(loaded.dataDir);
      const appFailure = new Promise<never>((_, reject) => {
        appFailed = reject;
      });
      await Promise.race([lifecycle.startAll(built), appFailure]);
      await appServed;
      return status();
    } catch (error) {
      logger.error({ err: error }, 'mesh start failed; cleaning up');
      await stop();
      throw error;
    }
  }

  let stopped: Promise<void> | undefined;
  function stop(): Promise<void> {
    stopped ??= (async () => {
      stopping.abort(new Error(`mesh ${config.mesh.name} is stopping`));
      await lifecycle.stopAll();
      await appServed?.catch(() => {});
      await listener.close();
      context?.db.close();
      logger.info({ mesh: config.mesh.name }, 'mesh stopped');
    })();
    return stopped;
  }

  const started = () => {
    if (!context) throw new Error('the host has not started');
    return context;
  };
  return {
    start,
    stop,
    status,
    shutdownRequested,
    channelMesh: createChannelMesh({
      lanes: () => hostService(LANES),
      registry: () => hostService(AGENT_REGISTRY),
      approvals: () => hostService(APPROVALS),
      notices,
    }),
    featureDatabase: (feature, steps) => featureDatabase(started(), feature, steps),
    resolveSecret: (reference) => resolveSecret(started(), reference),
    routes: () => [...routes],
  };
}
