import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { type AgentSelf, type MeshStatus, OpenLegionError, resolveModel } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { loadOrCreateOperatorToken } from './auth/operator-token.js';
import { TokenRegistry } from './auth/token-registry.js';
import type { LoadedMeshConfig } from './config/index.js';
import {
  type AgentRuntime,
  agentInstanceName,
  DockerRuntime,
  ProcessRuntime,
  probeDockerEngine,
  type RunningAgent,
} from './fleet/index.js';
import { AgentRegistry, toAgentInfo } from './registry/index.js';
import { environmentSecrets } from './secrets/index.js';
import { openStore, type Store } from './store/index.js';
import { HOST_VERSION } from './version.js';

/** One line of start-up progress per agent and phase. */
export interface StartProgress {
  agent: string;
  phase: 'starting' | 'ready' | 'failed';
  /** Milliseconds since this agent's start began. */
  ms: number;
}

export interface MeshHostOptions {
  loaded: LoadedMeshConfig;
  runtime: 'docker' | 'process';
  logger: Logger;
  /** Where provider keys come from (until the vault). */
  env: NodeJS.ProcessEnv;
  /** The agent entry for the process runtime: `<repo>/packages/agent/dist/main.js`. */
  agentEntry: string;
  /** provider name → base URL, e.g. the loopback servers of scripted providers. */
  baseUrlOverrides?: Record<string, string>;
  onProgress?: (progress: StartProgress) => void;
  /** Injectable for tests; defaults to the runtime named by `runtime`. */
  agentRuntime?: AgentRuntime;
}

export interface MeshHost {
  /** Listen, start every agent concurrently and wait until all are ready. Cleans up on failure. */
  start(): Promise<MeshStatus>;
  /** Stop every agent, remove the network, close the server and the store. Idempotent. */
  stop(): Promise<void>;
  status(): MeshStatus;
  /** Settles when an operator asks the host to shut down (`POST /api/shutdown`). */
  readonly shutdownRequested: Promise<void>;
}

const LAST_LOG_LINES = 20;

/** Compose the whole host: store, tokens, registry, LLM proxy, server and fleet runtime. */
export function createMeshHost(options: MeshHostOptions): MeshHost {
  const { loaded, logger } = options;
  const { config } = loaded;
  const meshName = config.mesh.name;
  const runtime = options.agentRuntime ?? createRuntime(options);
  const tokens = new TokenRegistry();
  const startedAt = new Date().toISOString();
  let store: Store | undefined;
  let registry: AgentRegistry | undefined;
  let app: FastifyInstance | undefined;
  let servers: Server[] = [];
  /** Container/process launches in flight: a stop during start-up waits for them, then stops all. */
  const launches: Promise<RunningAgent>[] = [];
  let url = `http://${config.mesh.host}:${config.mesh.port}`;
  let stopped: Promise<void> | undefined;
  let requestShutdown: () => void = () => {};
  const shutdownRequested = new Promise<void>((resolve) => {
    requestShutdown = resolve;
  });

  const status = (): MeshStatus => ({
    mesh: meshName,
    version: HOST_VERSION,
    pid: process.pid,
    url,
    started_at: startedAt,
    runtime: runtime.kind,
    agents: (registry?.list() ?? []).map(toAgentInfo),
  });

  const selfFor = (agent: string): AgentSelf => {
    const agentConfig = config.agents[agent];
    if (!agentConfig) throw new OpenLegionError('AGENT_UNKNOWN', `no agent "${agent}"`);
    return {
      agent,
      mesh: meshName,
      role: agentConfig.role,
      model: resolveModel(config, agentConfig.model),
      soul: readSoul(agentConfig.soul, loaded.resolvePath),
    };
  };

  async function startAgent(agent: string, meshUrl: string): Promise<RunningAgent> {
    const began = Date.now();
    const progress = (phase: StartProgress['phase']) =>
      options.onProgress?.({ agent, phase, ms: Date.now() - began });
    const agentConfig = config.agents[agent];
    const model = resolveModel(config, agentConfig?.model ?? 'default');
    throwIfStopped();
    const token = tokens.mint(agent);
    registry?.register({ name: agent, runtime: runtime.kind, model });
    progress('starting');
    try {
      const launch = runtime.start({
        mesh: meshName,
        agent,
        env: { AGENT_ID: agent, MESH_URL: meshUrl, MESH_TOKEN: token },
        resources: { ...config.runtime.resources, ...agentConfig?.resources },
        image: config.runtime.image,
        dataDir: loaded.dataDir,
      });
      launches.push(launch);
      const running = await launch;
      registry?.setLocation(agent, { url: running.url, container: running.name });
      await registry?.waitForReady(agent, config.runtime.ready_timeout_ms);
      progress('ready');
      return running;
    } catch (error) {
      progress('failed');
      registry?.markFailed(agent, error instanceof Error ? error : new Error(String(error)));
      const logs = await runtime.logs(agentInstanceName(meshName, agent), LAST_LOG_LINES).catch(() => '');
      throw new OpenLegionError(
        'AGENT_START_FAILED',
        `agent "${agent}" did not become ready within ${config.runtime.ready_timeout_ms / 1000}s: ${
          (error as Error).message
        }${logs.trim() ? `\n--- last log lines of ${agent} ---\n${logs.trimEnd()}` : ''}`,
        { cause: error },
      );
    }
  }

  /**
   * Start order is chosen for speed: the host listens at once with plain HTTP servers (a taken port
   * fails before any container starts), starts the agents, and only then loads fastify and the LLM
   * proxy, while Docker creates the containers. An agent asking before the app is up waits for it.
   */
  async function start(): Promise<MeshStatus> {
    try {
      store = openStore(path.join(loaded.dataDir, 'mesh.db'));
      registry = new AgentRegistry({ store });
      const operatorToken = await loadOrCreateOperatorToken(loaded.dataDir);
      const removed = await runtime.cleanupLeftovers(meshName);
      if (removed.length > 0) logger.warn({ removed }, 'removed leftovers of an earlier run');
      throwIfStopped();
      const prepared = await runtime.prepare(meshName);
      throwIfStopped();
      const bindAddresses = unique([config.mesh.host, ...prepared.hostBindAddresses]);
      let routeToApp: (app: FastifyInstance) => void = () => {};
      const appReady = new Promise<FastifyInstance>((resolve) => {
        routeToApp = resolve;
      });
      servers = await listenOn(bindAddresses, config.mesh.port, (request, response) => {
        void appReady.then((ready) => ready.routing(request, response));
      });
      url = `http://${config.mesh.host}:${config.mesh.port}`;
      logger.info({ mesh: meshName, addresses: bindAddresses, port: config.mesh.port }, 'host listening');

      const meshUrl = prepared.agentMeshUrl(config.mesh.port);
      const agentsStarted = Promise.allSettled(
        Object.keys(config.agents).map((agent) => startAgent(agent, meshUrl)),
      );
      app = await createApp(operatorToken, registry);
      await app.ready();
      routeToApp(app);

      const results = await agentsStarted;
      const failures = results.flatMap((result) =>
        result.status === 'rejected' ? [result.reason as Error] : [],
      );
      if (failures.length > 0) throw failures.length === 1 ? failures[0] : combine(failures);
      logger.info({ mesh: meshName, agents: results.length }, 'mesh ready');
      return status();
    } catch (error) {
      logger.error({ err: error }, 'mesh start failed; cleaning up');
      await stop();
      throw error;
    }
  }

  /** A stop during start-up (Ctrl-C) ends the start: nothing more is created after it. */
  function throwIfStopped(): void {
    if (stopped) throw new OpenLegionError('AGENT_START_FAILED', `mesh ${meshName} was stopped during start`);
  }

  /** The fastify app and the LLM proxy, loaded on demand (they are most of the host's start-up). */
  async function createApp(operatorToken: string, agents: AgentRegistry): Promise<FastifyInstance> {
    const [{ createAgentClient, createHostServer }, { createLlmProxy }] = await Promise.all([
      import('./server/index.js'),
      import('./llm/index.js'),
    ]);
    const llm = createLlmProxy({
      config,
      secrets: environmentSecrets(options.env),
      logger,
      baseUrlOverrides: options.baseUrlOverrides,
    });
    return createHostServer({
      logger,
      tokens,
      operatorToken,
      registry: agents,
      llm,
      agentClient: createAgentClient(),
      meshStatus: status,
      selfFor,
      onShutdown: requestShutdown,
    });
  }

  function stop(): Promise<void> {
    stopped ??= (async () => {
      await Promise.allSettled(launches);
      for (const agent of registry?.list() ?? []) {
        if (agent.state !== 'failed') registry?.markStopping(agent.name);
      }
      await runtime
        .stopAll()
        .catch((error: unknown) => logger.error({ err: error }, 'stopping agents failed'));
      for (const agent of registry?.list() ?? []) {
        tokens.revoke(agent.name);
        if (agent.state !== 'failed') registry?.markStopped(agent.name);
      }
      await runtime
        .teardown(meshName)
        .catch((error: unknown) => logger.error({ err: error }, 'teardown failed'));
      await Promise.all(servers.map(closeServer));
      await app?.close();
      store?.close();
      logger.info({ mesh: meshName }, 'mesh stopped');
    })();
    return stopped;
  }

  return { start, stop, status, shutdownRequested };
}

/**
 * Remove what a crashed host of this mesh left running (containers and network, or agent
 * processes), for `openlegion stop` when no host answers. Agents' data volumes are kept.
 * Looks in both runtimes: the crashed run may have used `--runtime` to override mesh.yaml.
 */
export async function removeCrashLeftovers(options: {
  loaded: LoadedMeshConfig;
  agentEntry: string;
}): Promise<string[]> {
  const mesh = options.loaded.config.mesh.name;
  const processes = createRuntime({ ...options, runtime: 'process' });
  const removed = await processes.cleanupLeftovers(mesh);
  if ((await probeDockerEngine()).reachable)
    removed.push(...(await new DockerRuntime().cleanupLeftovers(mesh)));
  return removed;
}

function createRuntime(options: Pick<MeshHostOptions, 'runtime' | 'agentEntry' | 'loaded'>): AgentRuntime {
  if (options.runtime === 'docker') return new DockerRuntime();
  return new ProcessRuntime({
    agentEntry: options.agentEntry,
    runDir: path.join(options.loaded.dataDir, 'run'),
  });
}

/** Listen on every address with `handler`; a port in use becomes a clear error naming it. */
async function listenOn(
  addresses: string[],
  port: number,
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<Server[]> {
  const servers: Server[] = [];
  for (const host of addresses) {
    const server = createServer(handler);
    server.listen(port, host);
    try {
      await once(server, 'listening');
    } catch (error) {
      await Promise.all(servers.map(closeServer));
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new OpenLegionError(
          'MESH_PORT_IN_USE',
          `port ${port} on ${host} is already in use (another openlegion host, or another program); stop it or set mesh.port in mesh.yaml`,
          { cause: error },
        );
      }
      throw error;
    }
    servers.push(server);
  }
  return servers;
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** `soul` is either the text itself or a path to a markdown file next to mesh.yaml. */
function readSoul(soul: string, resolvePath: (relative: string) => string): string {
  if (!/\.md$/i.test(soul.trim())) return soul;
  try {
    return readFileSync(resolvePath(soul.trim()), 'utf8');
  } catch (cause) {
    throw new OpenLegionError(
      'CONFIG_INVALID',
      `cannot read soul file ${soul}: ${(cause as Error).message}`,
      { cause },
    );
  }
}

function combine(failures: Error[]): OpenLegionError {
  return new OpenLegionError(
    'AGENT_START_FAILED',
    `${failures.length} agents did not become ready:\n${failures.map((failure) => failure.message).join('\n')}`,
    { cause: failures[0] },
  );
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
