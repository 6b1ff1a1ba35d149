import { AGENT_PORT } from '@openlegion/protocol';
import type Dockerode from 'dockerode';
import { type AgentSpec, agentInstanceName, FLEET_SKILLS_MOUNT } from './agent-runtime.js';
import { AGENT_LABEL, MESH_LABEL } from './docker-mesh-network.js';
import { agentVolumeName } from './docker-runtime.js';
import { parseByteSize } from './resource-limits.js';

/** Where the agent's secret environment file appears in its task (`/run/secrets/<this>`). */
export const AGENT_ENV_SECRET_FILE = 'openlegion-env';
/** Label on the host container, naming its mesh's overlays it is attached to by label. */
export const SWARM_ROLE_LABEL = 'openlegion.swarm-role';

/**
 * The variables of an agent's environment that carry a credential: its mesh token and the proxy
 * URLs with its proxy token. They travel as a swarm secret (a file in the task's tmpfs), never as
 * service env, which anyone who may inspect services reads.
 */
export const SECRET_ENV_KEYS: ReadonlySet<string> = new Set([
  'MESH_TOKEN',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'http_proxy',
  'https_proxy',
]);

const AGENT_USER = '1000';
const DATA_DIR = '/data';
const TMPFS_BYTES = 64 * 1024 ** 2;
const NANO_CPUS_PER_CPU = 1e9;
const SECONDS_NS = 1e9;
/** `no-new-privileges` for services came with Docker API 1.44 (Engine 25). */
const NO_NEW_PRIVILEGES_API = [1, 44] as const;

/** The swarm objects of one agent, all named after its container name `openlegion-<mesh>-<agent>`. */
export interface SwarmAgentNames {
  service: string;
  /** The agent's own internal overlay: only the agent and the host container are on it. */
  network: string;
  secret: string;
  volume: string;
}

export function swarmAgentNames(mesh: string, agent: string): SwarmAgentNames {
  const service = agentInstanceName(mesh, agent);
  return {
    service,
    network: `${service}-net`,
    secret: `${service}-env`,
    volume: agentVolumeName(mesh, agent),
  };
}

/** The host container of a swarm mesh: `openlegion-<mesh>-host`, the name agents reach it by. */
export function swarmHostName(mesh: string): string {
  return `openlegion-${mesh}-host`;
}

/** The host container's ordinary (non-internal) network: providers, and the CLI's published port. */
export function swarmHostNetworkName(mesh: string): string {
  return `openlegion-${mesh}-host-net`;
}

/** An agent's URL from the host container: the service's name resolves to its task on the agent's overlay. */
export function swarmAgentUrl(mesh: string, agent: string): string {
  return `http://${agentInstanceName(mesh, agent)}:${AGENT_PORT}`;
}

/** Splits an agent's environment into what may be service env and what must be a secret. */
export function splitAgentEnv(env: Readonly<Record<string, string>>): {
  plain: Record<string, string>;
  secret: Record<string, string>;
} {
  const plain: Record<string, string> = {};
  const secret: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) (SECRET_ENV_KEYS.has(key) ? secret : plain)[key] = value;
  return { plain, secret };
}

/** The secret's contents: `KEY='value'` lines a POSIX shell sources (single quotes escaped). */
export function envFileText(secret: Readonly<Record<string, string>>): string {
  return Object.entries(secret)
    .map(([key, value]) => `${key}='${value.replaceAll("'", `'"'"'`)}'\n`)
    .join('');
}

/** Whether the engine's API version sets `no-new-privileges` on a service's tasks. */
export function supportsNoNewPrivileges(apiVersion: string): boolean {
  const [major = 0, minor = 0] = apiVersion.split('.').map(Number);
  const [wantMajor, wantMinor] = NO_NEW_PRIVILEGES_API;
  return major > wantMajor || (major === wantMajor && minor >= wantMinor);
}

export interface AgentServiceInput {
  spec: AgentSpec;
  /** The secret holding {@link envFileText} of the agent's credentials. */
  secretId: string;
  /** The node that holds the agent's volume: the task runs there and only there. */
  nodeId: string;
  /** The image's command (its CMD), run after the secret file is sourced. */
  imageCommand: readonly string[];
  /** The image reference nodes pull (with the registry, when there is one). */
  image: string;
  noNewPrivileges: boolean;
}

type Privileges = Dockerode.ContainerSpec['Privileges'] & { NoNewPrivileges?: boolean };

/**
 * The service of one agent: one replica on its own internal overlay, the docker runtime's
 * hardening (user 1000, read-only root, every capability dropped, an init, tmpfs /tmp, and
 * no-new-privileges where the engine supports it for services), the resources as service limits,
 * its credentials as a swarm secret, its data on a named volume, pinned to the volume's node.
 */
export function buildAgentServiceSpec(input: AgentServiceInput): Dockerode.CreateServiceOptions {
  const { spec } = input;
  const names = swarmAgentNames(spec.mesh, spec.agent);
  const labels = { [MESH_LABEL]: spec.mesh, [AGENT_LABEL]: spec.agent };
  const { plain } = splitAgentEnv(spec.env);
  const env = { ...plain, ...(spec.skillsDir ? { AGENT_FLEET_SKILLS_DIR: FLEET_SKILLS_MOUNT } : {}) };
  const privileges: Privileges | undefined = input.noNewPrivileges ? { NoNewPrivileges: true } : undefined;
  const memory = parseByteSize(spec.resources.memory);
  return {
    Name: names.service,
    Labels: labels,
    Mode: { Replicated: { Replicas: 1 } },
    TaskTemplate: {
      ContainerSpec: {
        Image: input.image,
        Labels: labels,
        // The image's command after the secret file is read into the environment: the agent reads
        // MESH_TOKEN and the proxy variables from its environment, as in the docker runtime.
        Command: [
          '/bin/sh',
          '-c',
          'set -a && . "$0" && set +a && exec "$@"',
          `/run/secrets/${AGENT_ENV_SECRET_FILE}`,
        ],
        Args: [...input.imageCommand],
        Env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
        User: AGENT_USER,
        ReadOnly: true,
        CapabilityDrop: ['ALL'],
        Init: true,
        ...(privileges ? { Privileges: privileges } : {}),
        StopGracePeriod: 3 * SECONDS_NS,
        Secrets: [
          {
            SecretID: input.secretId,
            SecretName: names.secret,
            File: { Name: AGENT_ENV_SECRET_FILE, UID: AGENT_USER, GID: AGENT_USER, Mode: 0o400 },
          },
        ],
        Mounts: [
          {
            Type: 'volume',
            Source: names.volume,
            Target: DATA_DIR,
            // A volume the node creates on first use carries the mesh's labels.
            VolumeOptions: { NoCopy: false, Labels: labels, DriverConfig: { Name: 'local', Options: {} } },
          },
          {
            Type: 'tmpfs',
            Source: '',
            Target: '/tmp',
            TmpfsOptions: { SizeBytes: TMPFS_BYTES, Mode: 0o1777 },
          },
          // The operator's skills, read-only; the path must exist on the agent's node.
          ...(spec.skillsDir
            ? [{ Type: 'bind' as const, Source: spec.skillsDir, Target: FLEET_SKILLS_MOUNT, ReadOnly: true }]
            : []),
        ],
      },
      Resources: {
        Limits: {
          NanoCPUs: Math.round(spec.resources.cpus * NANO_CPUS_PER_CPU),
          MemoryBytes: memory,
          Pids: spec.resources.pids,
        },
      },
      // Swarm replaces a task that dies; the new one reads the same secret and reports ready again.
      RestartPolicy: { Condition: 'any', Delay: 0.5 * SECONDS_NS, MaxAttempts: 0 },
      // The volume is local to one node: the agent stays where its memory is.
      Placement: { Constraints: [`node.id==${input.nodeId}`] },
      Networks: [{ Target: names.network }],
      LogDriver: { Name: 'json-file', Options: { 'max-size': '10m', 'max-file': '3' } },
    },
    // DNS round robin, no virtual IP: the host reaches the task's own address (and swarm's IPVS
    // load balancer, absent on some kernels, is not needed for one replica).
    EndpointSpec: { Mode: 'dnsrr' },
  };
}
