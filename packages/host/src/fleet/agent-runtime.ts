/** Which kind of runtime runs a mesh's agents. */
export type AgentRuntimeKind = 'docker' | 'process' | 'swarm';

/** Limits from mesh.yaml `runtime.resources`. */
export interface AgentResources {
  /** A size like `512m` or `1g` (bytes when there is no unit). */
  memory: string;
  /** CPU share, e.g. `1` or `0.5`. */
  cpus: number;
  /** Maximum number of processes and threads. */
  pids: number;
}

/** Everything a runtime needs to start one agent. */
export interface AgentSpec {
  mesh: string;
  agent: string;
  /** The agent's whole environment: `AGENT_ID`, `MESH_URL`, `MESH_TOKEN` and the egress proxy's variables. Nothing else. */
  env: Readonly<Record<string, string>>;
  resources: AgentResources;
  /** The agent image (docker runtime), e.g. `openlegion-agent:0.1.0`. */
  image: string;
  /** The host's data dir; the process runtime keeps the agent's data in `<dataDir>/agents/<agent>`. */
  dataDir: string;
  /**
   * The fleet's `skills/` folder beside mesh.yaml (absolute), when it exists. The docker runtime
   * mounts it read-only at {@link FLEET_SKILLS_MOUNT}; either runtime tells the agent where it is
   * in `AGENT_FLEET_SKILLS_DIR`.
   */
  skillsDir?: string | undefined;
  /** Aborted when the host stops: a runtime that waits for its agent to run gives up then (swarm). */
  signal?: AbortSignal | undefined;
}

/** Where an agent container sees the fleet's skills folder (a read-only bind mount). */
export const FLEET_SKILLS_MOUNT = '/skills';

/** An agent a runtime has started. */
export interface RunningAgent {
  agent: string;
  /** Unique per host: `openlegion-<mesh>-<agent>`. Pass it to `stop` and `logs`. */
  name: string;
  /** Where the host reaches the agent's HTTP server, e.g. `http://172.18.0.2:8400`. */
  url: string;
  /** Set by the docker runtime. */
  containerId: string | null;
  /** Set by the process runtime. */
  pid: number | null;
}

/** What `prepare` tells the host about the mesh's network. */
export interface PreparedMesh {
  /** Addresses the host must listen on so agents reach it (loopback first). Never `0.0.0.0`. */
  hostBindAddresses: string[];
  /** The `MESH_URL` an agent uses to reach the host listening on `port`. */
  agentMeshUrl: (port: number) => string;
}

/**
 * Runs a mesh's agents: as hardened containers (`docker`) or as child processes (`process`).
 *
 * @example
 * const mesh = await runtime.prepare('demo');
 * await runtime.cleanupLeftovers('demo');
 * // listen on mesh.hostBindAddresses, then for each agent:
 * const running = await runtime.start({ mesh: 'demo', agent: 'a', env: { AGENT_ID: 'a', MESH_URL: mesh.agentMeshUrl(port), MESH_TOKEN: token }, resources, image, dataDir });
 * // …later
 * await runtime.stopAll();
 * await runtime.teardown('demo');
 */
export interface AgentRuntime {
  readonly kind: AgentRuntimeKind;
  /** Makes the mesh's network ready (docker: an internal network) and says how agents reach the host. */
  prepare(mesh: string): Promise<PreparedMesh>;
  /** Removes what a crashed run of this mesh left behind; keeps the agents' data. Returns what it removed. */
  cleanupLeftovers(mesh: string): Promise<string[]>;
  /** Starts one agent; resolves once it runs (not once it is ready: the agent reports that itself). */
  start(spec: AgentSpec): Promise<RunningAgent>;
  /** Stops the agent gracefully (force after a short timeout). Stopping a stopped agent is fine. */
  stop(name: string): Promise<void>;
  /** Stops every agent this runtime started. */
  stopAll(): Promise<void>;
  /** The agent's last `lines` lines of output, e.g. to explain why it never became ready. */
  logs(name: string, lines: number): Promise<string>;
  /**
   * Deletes a stopped agent's data (docker: its volume; process: its data folder): a temporary
   * agent's (fleet spawn) leaves with it. Optional: a runtime without it keeps the data.
   */
  removeData?(mesh: string, agent: string, dataDir: string): Promise<void>;
  /** Removes the mesh's network once its agents are stopped. */
  teardown(mesh: string): Promise<void>;
  /**
   * Be told when an agent this runtime started exits without being stopped (a crash, an OOM kill,
   * `docker kill`), so the host can restart it at once instead of waiting for failed probes.
   */
  onUnexpectedExit(listener: (agent: string) => void): void;
}

/** The name of an agent's container (and of its process in the process runtime). */
export function agentInstanceName(mesh: string, agent: string): string {
  return `openlegion-${mesh}-${agent}`;
}
