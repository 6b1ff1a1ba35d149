import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { OpenLegionError } from '@openlegion/protocol';
import Dockerode from 'dockerode';
import type { LoadedMeshConfig } from '../config/index.js';
import { callEngine, engineStatusCode, ignoringAbsent } from './docker-errors.js';
import { decodeDockerLogs } from './docker-log-frames.js';
import { MESH_LABEL } from './docker-mesh-network.js';
import { assertOurs, assertSwarmManager, inspectOrNull, removeSwarmLeftovers } from './swarm-engine.js';
import { HOST_CONTAINER_ENV } from './swarm-runtime.js';
import { SWARM_ROLE_LABEL, swarmHostName, swarmHostNetworkName } from './swarm-service-spec.js';

export interface SwarmHostLaunch {
  loaded: LoadedMeshConfig;
  /** The launcher's environment: the variables mesh.yaml names (`env:NAME`) and OPENLEGION_* pass on. */
  env: NodeJS.ProcessEnv;
  /** How long the host may take to report ready (its agents' start included). */
  readyTimeoutMs: number;
  docker?: Dockerode;
  /** Progress lines for the operator. */
  say?: (text: string) => void;
}

const DOCKER_SOCKET = '/var/run/docker.sock';
const POLL_MS = 250;
const LOG_TAIL = 40;

/**
 * `openlegion start` with runtime swarm: run the host as a plain container (not a service: a
 * service's published port goes through the routing mesh on every address, and the host's port
 * must stay on 127.0.0.1) on its own ordinary network for the providers, with the Docker socket,
 * mesh.yaml's folder read-only and its data dir read-write at the same paths (so modes 0700/0600
 * and every path in mesh.yaml stay as they are). The host inside attaches itself to each agent's
 * overlay. Resolves once the host answers on 127.0.0.1:<port>; returns the container's name.
 */
export async function startSwarmHost(launch: SwarmHostLaunch): Promise<string> {
  const docker = launch.docker ?? new Dockerode();
  const { config } = launch.loaded;
  const mesh = config.mesh.name;
  await assertSwarmManager(docker);
  const name = swarmHostName(mesh);
  const network = swarmHostNetworkName(mesh);
  const labels = { [MESH_LABEL]: mesh, [SWARM_ROLE_LABEL]: 'host' };
  const image = config.runtime.host_image;
  if (!(await inspectOrNull(() => docker.getImage(image).inspect()))) {
    throw new OpenLegionError(
      'SWARM_IMAGE_MISSING',
      `the host image ${image} is not on this manager: build it with \`bash scripts/build-host-image.sh\` (runtime.host_image names it)`,
      { details: { image } },
    );
  }
  if (config.runtime.registry)
    await pushAgentImage(docker, config.runtime.image, config.runtime.registry, launch.say);
  const old = await inspectOrNull(() => docker.getContainer(name).inspect());
  if (old) {
    assertOurs('container', old.Config, name, mesh);
    if (old.State.Running) {
      throw new OpenLegionError(
        'SWARM_NAME_TAKEN',
        `mesh ${mesh} already runs in container ${name}; stop it with \`openlegion stop\``,
        { details: { kind: 'container', name } },
      );
    }
    // A crashed run: its agents' services, secrets and overlays go too (the volumes stay).
    await removeSwarmLeftovers(docker, mesh, { host: true });
  }
  await ensureHostNetwork(docker, network, labels);
  const configDir = path.dirname(launch.loaded.file);
  // Docker would create a missing bind source as root, mode 0755: the data dir stays private.
  mkdirSync(launch.loaded.dataDir, { recursive: true, mode: 0o700 });
  const port = String(config.mesh.port);
  launch.say?.(`starting the host of mesh ${mesh} in container ${name} (${image})…\n`);
  const container = await callEngine(() =>
    docker.createContainer({
      name,
      Image: image,
      Cmd: ['start', '--config', launch.loaded.file, '--runtime', 'swarm'],
      Env: hostEnv(launch, name),
      Labels: labels,
      ExposedPorts: { [`${port}/tcp`]: {} },
      HostConfig: {
        Binds: [
          `${configDir}:${configDir}:ro`,
          `${launch.loaded.dataDir}:${launch.loaded.dataDir}`,
          `${DOCKER_SOCKET}:${DOCKER_SOCKET}`,
        ],
        // Loopback only, as the host binds without swarm.
        PortBindings: { [`${port}/tcp`]: [{ HostIp: '127.0.0.1', HostPort: port }] },
        NetworkMode: network,
        Init: true,
        RestartPolicy: { Name: 'no' },
        LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } },
      },
    }),
  );
  await callEngine(() => container.start());
  await waitUntilReady(container, mesh, launch.readyTimeoutMs, launch.say);
  return name;
}

/** After the host in the container stopped: remove the container and its network. */
export async function removeSwarmHost(mesh: string, docker: Dockerode = new Dockerode()): Promise<void> {
  const container = docker.getContainer(swarmHostName(mesh));
  await ignoringAbsent(() => container.wait({ condition: 'not-running' }));
  await ignoringAbsent(() => container.remove({ force: true }));
  await ignoringAbsent(() => docker.getNetwork(swarmHostNetworkName(mesh)).remove());
}

/**
 * `runtime.registry`: tag the agent image `<registry>/<image>` and push it, so every node pulls the
 * same image (the services name it so). Throws SWARM_PUSH_FAILED with the registry's answer.
 */
export async function pushAgentImage(
  docker: Dockerode,
  image: string,
  registry: string,
  say?: (text: string) => void,
): Promise<void> {
  const target = `${registry}/${image}`;
  const at = target.lastIndexOf(':');
  const [repo, tag] =
    at > target.lastIndexOf('/') ? [target.slice(0, at), target.slice(at + 1)] : [target, 'latest'];
  if (!(await inspectOrNull(() => docker.getImage(image).inspect()))) {
    throw new OpenLegionError(
      'SWARM_IMAGE_MISSING',
      `image ${image} is not on this manager, so it cannot be pushed to ${registry}: build it (bash scripts/build-agent-image.sh)`,
      { details: { image } },
    );
  }
  say?.(`pushing ${target}…\n`);
  const failed = (why: string, cause?: unknown) =>
    new OpenLegionError(
      'SWARM_PUSH_FAILED',
      `pushing ${target} failed (${why}): check that runtime.registry ${registry} is up and accepts pushes (docker login ${registry}; an HTTP registry must be in the engine's insecure-registries)`,
      { cause, details: { registry, image: target } },
    );
  try {
    await callEngine(() => docker.getImage(image).tag({ repo, tag }));
    const stream = await callEngine(() => docker.getImage(target).push({}));
    const events = await new Promise<Array<{ error?: string }>>((resolve, reject) =>
      docker.modem.followProgress(stream, (error: Error | null, output: Array<{ error?: string }>) =>
        error ? reject(error) : resolve(output),
      ),
    );
    const refused = events.find((event) => event.error);
    if (refused?.error) throw failed(refused.error);
  } catch (error) {
    if (error instanceof OpenLegionError) throw error;
    throw failed((error as Error).message, error);
  }
}

/** The environment passed into the host container: its name, OPENLEGION_*, and mesh.yaml's `env:` names. */
function hostEnv(launch: SwarmHostLaunch, name: string): string[] {
  const wanted = new Set<string>();
  const text = readFileSync(launch.loaded.file, 'utf8');
  for (const match of text.matchAll(/env:([A-Za-z_][A-Za-z0-9_]*)/g)) if (match[1]) wanted.add(match[1]);
  for (const key of Object.keys(launch.env)) if (key.startsWith('OPENLEGION_')) wanted.add(key);
  wanted.delete(HOST_CONTAINER_ENV);
  const env = [...wanted].flatMap((key) => {
    const value = launch.env[key];
    return value === undefined ? [] : [`${key}=${value}`];
  });
  return [...env, `${HOST_CONTAINER_ENV}=${name}`];
}

async function ensureHostNetwork(
  docker: Dockerode,
  name: string,
  labels: Record<string, string>,
): Promise<void> {
  const existing = await inspectOrNull(() => docker.getNetwork(name).inspect());
  if (existing) {
    assertOurs('network', existing as { Labels?: Record<string, string> }, name, labels[MESH_LABEL] ?? '');
    return;
  }
  try {
    await callEngine(() =>
      docker.createNetwork({ Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: labels }),
    );
  } catch (error) {
    if (engineStatusCode(error) !== 409) throw error;
  }
}

/**
 * Passes the host's start-up lines on and resolves at its "mesh <name> ready" line; throws with
 * the container's last output when it exits first or takes longer than `timeoutMs`.
 */
async function waitUntilReady(
  container: Dockerode.Container,
  mesh: string,
  timeoutMs: number,
  say: ((text: string) => void) | undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let shown = 0;
  while (Date.now() < deadline) {
    const raw = await callEngine(() => container.logs({ stdout: true, stderr: false, follow: false }));
    const lines = decodeDockerLogs(raw).split('\n');
    const complete = lines.slice(0, -1);
    for (const line of complete.slice(shown)) say?.(`${line}\n`);
    shown = complete.length;
    if (complete.some((line) => line.startsWith(`mesh ${mesh} ready`))) return;
    const state = (await callEngine(() => container.inspect())).State;
    if (!state.Running) {
      throw new OpenLegionError(
        'AGENT_START_FAILED',
        `the host container exited (code ${state.ExitCode}); its last output:\n${await containerLogs(container)}`,
      );
    }
    await sleep(POLL_MS);
  }
  throw new OpenLegionError(
    'AGENT_START_FAILED',
    `the host of mesh ${mesh} did not report ready within ${timeoutMs / 1000}s; its last output:\n${await containerLogs(container)}`,
  );
}

async function containerLogs(container: Dockerode.Container): Promise<string> {
  const raw = await container
    .logs({ stdout: true, stderr: true, tail: LOG_TAIL, follow: false })
    .catch(() => null);
  return raw ? decodeDockerLogs(raw).trimEnd() : '';
}
