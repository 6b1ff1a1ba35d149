import { AGENT_PORT, OpenLegionError } from '@openlegion/protocol';
import Dockerode from 'dockerode';
import {
  type AgentRuntime,
  type AgentSpec,
  agentInstanceName,
  FLEET_SKILLS_MOUNT,
  type PreparedMesh,
  type RunningAgent,
} from './agent-runtime.js';
import { callEngine, engineStatusCode, ignoringAbsent } from './docker-errors.js';
import { decodeDockerLogs } from './docker-log-frames.js';
import {
  AGENT_LABEL,
  ensureMeshNetwork,
  MESH_LABEL,
  meshNetworkName,
  removeMeshLeftovers,
  removeMeshNetwork,
} from './docker-mesh-network.js';
import { ExitListeners } from './exit-listeners.js';
import { toDockerLimits } from './resource-limits.js';

export interface DockerRuntimeOptions {
  /** The engine client; defaults to the local socket (or DOCKER_HOST). */
  docker?: Dockerode;
  /** Seconds between SIGTERM and SIGKILL when stopping an agent. */
  stopTimeoutSeconds?: number;
}

const DEFAULT_STOP_TIMEOUT_S = 3;
const AGENT_USER = '1000';
const DATA_DIR = '/data';
const TMPFS_OPTIONS = 'rw,nosuid,nodev,size=64m';
const LOG_TAIL_ON_FAILURE = 40;

/** The agent's data volume: `openlegion-<mesh>-<agent>-data`. Kept across runs. */
export function agentVolumeName(mesh: string, agent: string): string {
  return `${agentInstanceName(mesh, agent)}-data`;
}

/**
 * Agents as hardened containers on an internal network: user 1000, read-only root, no
 * capabilities, no-new-privileges, an init, limits, and a named volume on /data.
 *
 * The host reaches an agent at its address on the mesh network: Docker publishes no ports for
 * containers on an internal network, and the host is that network's gateway.
 */
export class DockerRuntime implements AgentRuntime {
  readonly kind = 'docker';
  readonly #docker: Dockerode;
  readonly #stopTimeoutSeconds: number;
  readonly #started = new Map<string, RunningAgent>();
  readonly #stopping = new Set<string>();
  readonly #exits = new ExitListeners();

  constructor(options: DockerRuntimeOptions = {}) {
    this.#docker = options.docker ?? new Dockerode();
    this.#stopTimeoutSeconds = options.stopTimeoutSeconds ?? DEFAULT_STOP_TIMEOUT_S;
  }

  async prepare(mesh: string): Promise<PreparedMesh> {
    const gateway = await ensureMeshNetwork(this.#docker, mesh);
    return { hostBindAddresses: ['127.0.0.1', gateway], agentMeshUrl: (port) => `http://${gateway}:${port}` };
  }

  cleanupLeftovers(mesh: string): Promise<string[]> {
    return removeMeshLeftovers(this.#docker, mesh);
  }

  async start(spec: AgentSpec): Promise<RunningAgent> {
    const name = agentInstanceName(spec.mesh, spec.agent);
    // A container of a killed run keeps the name; its data lives in the volume, not in it.
    await ignoringAbsent(() => this.#docker.getContainer(name).remove({ force: true }));
    await this.#ensureVolume(spec);
    const container = await this.#create(spec, name);
    await callEngine(() => container.start());
    const info = await callEngine(() => container.inspect());
    const address = info.NetworkSettings.Networks[meshNetworkName(spec.mesh)]?.IPAddress;
    if (!info.State.Running || !address) {
      const output = await this.logs(name, LOG_TAIL_ON_FAILURE);
      throw new OpenLegionError(
        'AGENT_START_FAILED',
        `agent "${spec.agent}" exited at once (code ${info.State.ExitCode}); its last output:\n${output}`,
      );
    }
    const running: RunningAgent = {
      agent: spec.agent,
      name,
      url: `http://${address}:${AGENT_PORT}`,
      containerId: container.id,
      pid: null,
    };
    this.#started.set(name, running);
    // Resolves when the container stops, however it stops; only a stop we did not ask for is news.
    void container
      .wait()
      .then(() => {
        if (this.#started.get(name)?.containerId === container.id && !this.#stopping.has(name)) {
          this.#exits.emit(spec.agent);
        }
      })
      .catch(() => {});
    return running;
  }

  onUnexpectedExit(listener: (agent: string) => void): void {
    this.#exits.listen(listener);
  }

  async stop(name: string): Promise<void> {
    const container = this.#docker.getContainer(name);
    this.#stopping.add(name);
    try {
      await ignoringAbsent(() => container.stop({ t: this.#stopTimeoutSeconds }));
      await ignoringAbsent(() => container.remove({ force: true }));
      this.#started.delete(name);
    } finally {
      this.#stopping.delete(name);
    }
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.#started.keys()].map((name) => this.stop(name)));
  }

  async logs(name: string, lines: number): Promise<string> {
    try {
      const raw = await callEngine(() =>
        this.#docker.getContainer(name).logs({ stdout: true, stderr: true, tail: lines, follow: false }),
      );
      return decodeDockerLogs(raw);
    } catch (error) {
      if (engineStatusCode(error) !== 404) throw error;
      throw new OpenLegionError('AGENT_UNKNOWN', `no container ${name}; it was stopped or never started`, {
        cause: error,
      });
    }
  }

  async removeData(mesh: string, agent: string): Promise<void> {
    await ignoringAbsent(() => this.#docker.getVolume(agentVolumeName(mesh, agent)).remove());
  }

  teardown(mesh: string): Promise<void> {
    return removeMeshNetwork(this.#docker, mesh);
  }

  async #ensureVolume(spec: AgentSpec): Promise<void> {
    // Creating an existing volume returns it unchanged.
    await callEngine(() =>
      this.#docker.createVolume({
        Name: agentVolumeName(spec.mesh, spec.agent),
        Labels: { [MESH_LABEL]: spec.mesh, [AGENT_LABEL]: spec.agent },
      }),
    );
  }

  async #create(spec: AgentSpec, name: string): Promise<Dockerode.Container> {
    const network = meshNetworkName(spec.mesh);
    try {
      return await callEngine(() =>
        this.#docker.createContainer({
          name,
          Image: spec.image,
          User: AGENT_USER,
          Env: Object.entries({
            ...spec.env,
            ...(spec.skillsDir ? { AGENT_FLEET_SKILLS_DIR: FLEET_SKILLS_MOUNT } : {}),
          }).map(([key, value]) => `${key}=${value}`),
          Labels: { [MESH_LABEL]: spec.mesh, [AGENT_LABEL]: spec.agent },
          HostConfig: {
            ...toDockerLimits(spec.resources),
            ReadonlyRootfs: true,
            Tmpfs: { '/tmp': TMPFS_OPTIONS },
            CapDrop: ['ALL'],
            SecurityOpt: ['no-new-privileges'],
            Init: true,
            NetworkMode: network,
            Mounts: [
              { Type: 'volume', Source: agentVolumeName(spec.mesh, spec.agent), Target: DATA_DIR },
              // The operator's skills, read-only: an agent can read them, never change them for the fleet.
              ...(spec.skillsDir
                ? [
                    {
                      Type: 'bind' as const,
                      Source: spec.skillsDir,
                      Target: FLEET_SKILLS_MOUNT,
                      ReadOnly: true,
                    },
                  ]
                : []),
            ],
            RestartPolicy: { Name: 'no' },
            LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } },
          },
          NetworkingConfig: { EndpointsConfig: { [network]: {} } },
        }),
      );
    } catch (error) {
      if (engineStatusCode(error) !== 404) throw error;
      throw new OpenLegionError(
        'AGENT_START_FAILED',
        `image ${spec.image} or network ${network} not found; build the image with \`bash scripts/build-agent-image.sh\` and call prepare() first`,
        { cause: error },
      );
    }
  }
}
