import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OpenLegionError } from '@openlegion/protocol';
import Dockerode from 'dockerode';
import type { AgentRuntime, AgentSpec, PreparedMesh, RunningAgent } from './agent-runtime.js';
import { callEngine, engineStatusCode, ignoringAbsent } from './docker-errors.js';
import { decodeDockerLogs } from './docker-log-frames.js';
import { AGENT_LABEL, MESH_LABEL } from './docker-mesh-network.js';
import { ExitListeners } from './exit-listeners.js';
import {
  assertOurs,
  assertSwarmManager,
  ensureOverlay,
  inspectOrNull,
  removeSwarmLeftovers,
  removeWhenFree,
  type SwarmManagerInfo,
  waitForRunningTask,
  waitForServiceGone,
} from './swarm-engine.js';
import {
  buildAgentServiceSpec,
  envFileText,
  splitAgentEnv,
  supportsNoNewPrivileges,
  swarmAgentNames,
  swarmAgentUrl,
  swarmHostName,
} from './swarm-service-spec.js';

/** The variable the host container's launcher sets to the container's name (see swarm-host-container.ts). */
export const HOST_CONTAINER_ENV = 'OPENLEGION_HOST_CONTAINER';

export interface SwarmRuntimeOptions {
  docker?: Dockerode;
  /** The mesh's agents: each gets its overlay in `prepare`, so the host listens on all of them. */
  agents: readonly string[];
  /** The host's own container (from {@link HOST_CONTAINER_ENV}); the runtime refuses to run without it. */
  hostContainer: string | undefined;
  /** `runtime.registry`: the image nodes pull is `<registry>/<image>`. */
  registry?: string | undefined;
  /** How long a service's task may take to run (pulling an image included). */
  taskTimeoutMs?: number;
}

const DEFAULT_TASK_TIMEOUT_MS = 60_000;
const STOP_WAIT_MS = 15_000;
const LOG_TAIL_ON_FAILURE = 40;
const PLACEMENT_FILE = 'swarm-placement.json';

/**
 * Agents as Docker Swarm services, one replica each, every agent on its own internal overlay
 * that only it and the host container share: agents cannot reach each other, and without a
 * gateway their only way out is the host's egress proxy. Credentials are swarm secrets; data is a
 * named volume on the node the agent is pinned to.
 *
 * Swarm, not the host, replaces a task that dies (its restart policy); the new task reads the same
 * secret and reports ready to the host again, so the host is not told of such exits.
 */
export class SwarmRuntime implements AgentRuntime {
  readonly kind = 'swarm';
  readonly #docker: Dockerode;
  readonly #options: SwarmRuntimeOptions;
  readonly #started = new Map<string, RunningAgent>();
  readonly #exits = new ExitListeners();
  #manager: SwarmManagerInfo | undefined;

  constructor(options: SwarmRuntimeOptions) {
    this.#docker = options.docker ?? new Dockerode();
    this.#options = options;
  }

  async prepare(mesh: string): Promise<PreparedMesh> {
    this.#manager = await assertSwarmManager(this.#docker);
    const host = this.#hostContainer();
    // In parallel: each attach builds the overlay's sandbox on this node (~1-2 s each here).
    await Promise.all(this.#options.agents.map((agent) => this.#attachOverlay(mesh, agent, host)));
    const info = await callEngine(() => this.#docker.getContainer(host).inspect());
    const addresses = Object.values(info.NetworkSettings.Networks)
      .map((network) => network.IPAddress)
      .filter((address) => address && !address.includes(':'));
    // Inside its container the host binds only its own addresses: the overlays and its own network.
    return {
      hostBindAddresses: ['127.0.0.1', ...addresses],
      agentMeshUrl: (port) => `http://${swarmHostName(mesh)}:${port}`,
    };
  }

  cleanupLeftovers(mesh: string): Promise<string[]> {
    return removeSwarmLeftovers(this.#docker, mesh, { host: false });
  }

  async start(spec: AgentSpec): Promise<RunningAgent> {
    const manager = this.#manager ?? (await assertSwarmManager(this.#docker));
    const names = swarmAgentNames(spec.mesh, spec.agent);
    const labels = { [MESH_LABEL]: spec.mesh, [AGENT_LABEL]: spec.agent };
    await this.#attachOverlay(spec.mesh, spec.agent, this.#hostContainer());
    await this.#removeService(names.service, spec.mesh);
    const imageCommand = await this.#imageCommand(spec.image);
    const secretId = await this.#createSecret(names.secret, labels, spec);
    const nodeId = readPlacement(spec.dataDir)[spec.agent] ?? manager.nodeId;
    const image = this.#options.registry ? `${this.#options.registry}/${spec.image}` : spec.image;
    await callEngine(() =>
      this.#docker.createService(
        buildAgentServiceSpec({
          spec,
          secretId,
          nodeId,
          imageCommand,
          image,
          noNewPrivileges: supportsNoNewPrivileges(manager.apiVersion),
        }),
      ),
    );
    const task = await waitForRunningTask(this.#docker, names.service, {
      image,
      timeoutMs: this.#options.taskTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS,
      logs: () => this.logs(names.service, LOG_TAIL_ON_FAILURE),
      signal: spec.signal,
    });
    if (task.NodeID) writePlacement(spec.dataDir, spec.agent, task.NodeID);
    const running: RunningAgent = {
      agent: spec.agent,
      name: names.service,
      url: swarmAgentUrl(spec.mesh, spec.agent),
      containerId: task.Status?.ContainerStatus?.ContainerID ?? null,
      pid: null,
    };
    this.#started.set(names.service, running);
    return running;
  }

  onUnexpectedExit(listener: (agent: string) => void): void {
    // Kept for the interface: Swarm replaces a dead task itself (see the class comment).
    this.#exits.listen(listener);
  }

  async stop(name: string): Promise<void> {
    await ignoringAbsent(() => this.#docker.getService(name).remove());
    await waitForServiceGone(this.#docker, name, STOP_WAIT_MS);
    await removeWhenFree(() => this.#docker.getSecret(`${name}-env`).remove());
    this.#started.delete(name);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.#started.keys()].map((name) => this.stop(name)));
  }

  async logs(name: string, lines: number): Promise<string> {
    try {
      // Without follow the engine's whole answer comes back at once (typed as a stream by dockerode).
      const raw = (await callEngine(() =>
        this.#docker.getService(name).logs({ stdout: true, stderr: true, tail: lines, follow: false }),
      )) as unknown as Buffer | string;
      return decodeDockerLogs(typeof raw === 'string' ? Buffer.from(raw, 'binary') : raw);
    } catch (error) {
      if (engineStatusCode(error) !== 404) throw error;
      throw new OpenLegionError('AGENT_UNKNOWN', `no service ${name}; it was stopped or never started`, {
        cause: error,
      });
    }
  }

  async teardown(mesh: string): Promise<void> {
    await removeSwarmLeftovers(this.#docker, mesh, {
      host: false,
      keepContainer: this.#options.hostContainer,
    });
  }

  #hostContainer(): string {
    const host = this.#options.hostContainer;
    if (!host) {
      throw new OpenLegionError(
        'SWARM_HOST_NOT_IN_CONTAINER',
        'runtime.kind swarm: the host process cannot reach overlay networks, so it runs in its own container on them; start the mesh with `openlegion start` (it starts that container from the image of `bash scripts/build-host-image.sh`)',
      );
    }
    return host;
  }

  async #attachOverlay(mesh: string, agent: string, host: string): Promise<void> {
    const names = swarmAgentNames(mesh, agent);
    await ensureOverlay(this.#docker, names.network, { [MESH_LABEL]: mesh, [AGENT_LABEL]: agent });
    try {
      await callEngine(() => this.#docker.getNetwork(names.network).connect({ Container: host }));
    } catch (error) {
      // Already attached (prepare did it, or this is a restart): 403 or 409 by engine version.
      const status = engineStatusCode(error);
      if (status !== 403 && status !== 409) throw error;
    }
  }

  async #removeService(name: string, mesh: string): Promise<void> {
    const existing = await inspectOrNull(() => this.#docker.getService(name).inspect());
    if (!existing) return;
    assertOurs(
      'service',
      (existing as { Spec?: { Labels?: Record<string, string> } }).Spec ?? {},
      name,
      mesh,
    );
    await this.stop(name);
  }

  async #createSecret(name: string, labels: Record<string, string>, spec: AgentSpec): Promise<string> {
    const existing = await inspectOrNull(() => this.#docker.getSecret(name).inspect());
    if (existing) {
      // A secret of a crashed run of this mesh is replaced; anyone else's is not ours to remove.
      assertOurs(
        'secret',
        (existing as { Spec?: { Labels?: Record<string, string> } }).Spec ?? {},
        name,
        spec.mesh,
      );
      await removeWhenFree(() => this.#docker.getSecret(name).remove());
    }
    const data = Buffer.from(envFileText(splitAgentEnv(spec.env).secret)).toString('base64');
    const created = (await callEngine(() =>
      this.#docker.createSecret({ Name: name, Labels: labels, Data: data }),
    )) as { id?: string; ID?: string };
    const id = created.id ?? created.ID;
    if (!id) throw new OpenLegionError('INTERNAL', `the engine returned no id for secret ${name}`);
    return id;
  }

  /** The image's entrypoint and command, read on the manager; without a registry the image must be here. */
  async #imageCommand(image: string): Promise<string[]> {
    const inspected = await inspectOrNull(() => this.#docker.getImage(image).inspect());
    if (!inspected) {
      throw new OpenLegionError(
        'SWARM_IMAGE_MISSING',
        `image ${image} is not on this manager: build it (bash scripts/build-agent-image.sh)${
          this.#options.registry ? '' : ', and on every node that runs agents, or set runtime.registry'
        }`,
        { details: { image } },
      );
    }
    return [...(inspected.Config.Entrypoint ?? []), ...(inspected.Config.Cmd ?? [])];
  }
}

/** agent → node id of the node that holds its volume (`<data_dir>/swarm-placement.json`). */
function readPlacement(dataDir: string): Record<string, string> {
  try {
    return JSON.parse(readFileSync(path.join(dataDir, PLACEMENT_FILE), 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

function writePlacement(dataDir: string, agent: string, nodeId: string): void {
  const placement = readPlacement(dataDir);
  if (placement[agent] === nodeId) return;
  writeFileSync(
    path.join(dataDir, PLACEMENT_FILE),
    JSON.stringify({ ...placement, [agent]: nodeId }, null, 2),
    {
      mode: 0o600,
    },
  );
}
