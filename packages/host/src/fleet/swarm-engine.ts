import { setTimeout as sleep } from 'node:timers/promises';
import { OpenLegionError } from '@openlegion/protocol';
import type Dockerode from 'dockerode';
import { callEngine, engineStatusCode, ignoringAbsent } from './docker-errors.js';
import { MESH_LABEL } from './docker-mesh-network.js';
import { SWARM_ROLE_LABEL } from './swarm-service-spec.js';

/** What the engine says about its place in the swarm. */
export interface SwarmManagerInfo {
  nodeId: string;
  apiVersion: string;
}

/** The swarm objects an engine lists with their labels (networks, secrets, services alike). */
interface Labelled {
  Name?: string | undefined;
  Labels?: Record<string, string> | undefined;
}

/** Polling the manager more often loads it (a raft read per call) and slows the scheduling it waits on. */
const POLL_MS = 250;
const REMOVE_RETRY_MS = 15_000;

/** Throws SWARM_NOT_MANAGER unless the engine is an active swarm manager. */
export async function assertSwarmManager(docker: Dockerode): Promise<SwarmManagerInfo> {
  const info = (await callEngine(() => docker.info())) as {
    Swarm?: { LocalNodeState?: string; ControlAvailable?: boolean; NodeID?: string };
  };
  const swarm = info.Swarm;
  if (swarm?.LocalNodeState !== 'active' || !swarm.ControlAvailable || !swarm.NodeID) {
    const state = swarm?.LocalNodeState ?? 'unknown';
    throw new OpenLegionError(
      'SWARM_NOT_MANAGER',
      `runtime.kind swarm: this Docker engine is not a swarm manager (swarm state: ${state}${
        state === 'active' ? ', worker node' : ''
      }). Run \`docker swarm init --advertise-addr 127.0.0.1\` for a single-node swarm, or start the mesh on a manager node`,
      { details: { state } },
    );
  }
  const version = await callEngine(() => docker.version());
  return { nodeId: swarm.NodeID, apiVersion: version.ApiVersion };
}

/** Throws SWARM_NAME_TAKEN when an object of that name exists but is not this mesh's. */
export function assertOurs(kind: string, object: Labelled, name: string, mesh: string): void {
  if (object.Labels?.[MESH_LABEL] === mesh) return;
  throw new OpenLegionError(
    'SWARM_NAME_TAKEN',
    `the swarm ${kind} ${name} exists and is not mesh "${mesh}"'s; remove it (docker ${kind} rm ${name}) or rename the mesh`,
    { details: { kind, name } },
  );
}

/** Creates an internal, attachable overlay of the mesh (or reuses ours); returns its id. */
export async function ensureOverlay(
  docker: Dockerode,
  name: string,
  labels: Record<string, string>,
): Promise<string> {
  const mesh = labels[MESH_LABEL] ?? '';
  const existing = await inspectOrNull(() => docker.getNetwork(name).inspect());
  if (existing) {
    const network = existing as Dockerode.NetworkInspectInfo;
    assertOurs('network', network, name, mesh);
    if (network.Driver !== 'overlay' || !network.Internal) assertOurs('network', {}, name, mesh);
    return network.Id;
  }
  const created = await callEngine(() =>
    docker.createNetwork({
      Name: name,
      Driver: 'overlay',
      // No egress: an agent reaches the outside only through the host's egress proxy.
      Internal: true,
      // The host is a plain container (not a service), so it must be able to join.
      Attachable: true,
      CheckDuplicate: true,
      Labels: labels,
    }),
  );
  return created.id;
}

/** The result of an inspect, or null when the engine answers 404. */
export async function inspectOrNull<T>(call: () => Promise<T>): Promise<T | null> {
  try {
    return await callEngine(call);
  } catch (error) {
    if (engineStatusCode(error) === 404) return null;
    throw error;
  }
}

/** Runs `call` until the engine stops answering 409/500 "in use" (a task container still going away). */
export async function removeWhenFree(call: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + REMOVE_RETRY_MS;
  for (;;) {
    try {
      await ignoringAbsent(call);
      return;
    } catch (error) {
      const status = engineStatusCode(error);
      // "in use by task" comes as 400, 403, 409 or 500 depending on the object and engine version.
      if (status === undefined || status === 404 || Date.now() > deadline) throw error;
      await sleep(POLL_MS);
    }
  }
}

/** Waits until no container of the service runs on this node (its overlay and secret are then free). */
export async function waitForServiceGone(
  docker: Dockerode,
  service: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const containers = await callEngine(() =>
      docker.listContainers({ all: true, filters: { label: [`com.docker.swarm.service.name=${service}`] } }),
    );
    if (containers.length === 0) return;
    await sleep(POLL_MS);
  }
}

/**
 * Removes what a run of the mesh left in the swarm: its services, secrets and overlays (not its
 * volumes: they hold the agents' memory). With `host`, also the host container and its network.
 * Returns the names removed.
 */
export async function removeSwarmLeftovers(
  docker: Dockerode,
  mesh: string,
  options: { host: boolean; keepContainer?: string | undefined },
): Promise<string[]> {
  const filters = { label: [`${MESH_LABEL}=${mesh}`] };
  const removed: string[] = [];
  const services = (await callEngine(() => docker.listServices({ filters }))) as Array<{
    ID: string;
    Spec?: Labelled;
  }>;
  await Promise.all(services.map((service) => ignoringAbsent(() => docker.getService(service.ID).remove())));
  removed.push(...services.map((service) => service.Spec?.Name ?? service.ID));
  await Promise.all(
    services.map((service) => waitForServiceGone(docker, service.Spec?.Name ?? service.ID, REMOVE_RETRY_MS)),
  );
  if (options.host) {
    const hosts = await callEngine(() =>
      docker.listContainers({
        all: true,
        filters: { label: [`${MESH_LABEL}=${mesh}`, `${SWARM_ROLE_LABEL}=host`] },
      }),
    );
    await Promise.all(
      hosts.map((host) => ignoringAbsent(() => docker.getContainer(host.Id).remove({ force: true }))),
    );
    removed.push(...hosts.map((host) => host.Names[0]?.replace(/^\//, '') ?? host.Id));
  }
  const secrets = (await callEngine(() => docker.listSecrets({ filters }))) as Array<{
    ID: string;
    Spec?: Labelled;
  }>;
  await Promise.all(secrets.map((secret) => removeWhenFree(() => docker.getSecret(secret.ID).remove())));
  removed.push(...secrets.map((secret) => secret.Spec?.Name ?? secret.ID));
  const networks = (await callEngine(() => docker.listNetworks({ filters }))).filter(
    (network) => options.host || network.Labels?.[SWARM_ROLE_LABEL] !== 'host',
  );
  await Promise.all(
    networks.map(async (network) => {
      if (options.keepContainer && network.Labels?.[SWARM_ROLE_LABEL] !== 'host') {
        const container = options.keepContainer;
        await ignoringAbsent(() =>
          docker.getNetwork(network.Id).disconnect({ Container: container, Force: true }),
        );
      }
      await removeWhenFree(() => docker.getNetwork(network.Id).remove());
    }),
  );
  removed.push(...networks.map((network) => network.Name));
  return removed;
}

/** A task of a service as the engine lists it (the fields read here). */
export interface SwarmTask {
  ID: string;
  NodeID?: string;
  DesiredState?: string;
  Status?: { State?: string; Err?: string; ContainerStatus?: { ContainerID?: string } };
}

const FAILED_TASK_STATES = new Set(['failed', 'rejected', 'orphaned']);

/**
 * Waits for the service's first task to run. Throws SWARM_IMAGE_MISSING when a node could not get
 * the image, AGENT_START_FAILED when the task failed otherwise or did not run within `timeoutMs`.
 */
export async function waitForRunningTask(
  docker: Dockerode,
  service: string,
  options: {
    image: string;
    timeoutMs: number;
    logs: () => Promise<string>;
    signal?: AbortSignal | undefined;
  },
): Promise<SwarmTask> {
  const deadline = Date.now() + options.timeoutMs;
  let last = 'no task yet';
  let why = '';
  while (Date.now() < deadline) {
    // The host is stopping: a task that cannot be placed (its node is gone) must not hold the stop.
    if (options.signal?.aborted) {
      throw new OpenLegionError(
        'AGENT_START_FAILED',
        `the host stopped while service ${service} waited for its task`,
      );
    }
    const tasks = (await callEngine(() =>
      docker.listTasks({ filters: { service: [service] } }),
    )) as SwarmTask[];
    const running = tasks.find((task) => task.Status?.State === 'running');
    if (running) return running;
    const failed = tasks.find((task) => FAILED_TASK_STATES.has(task.Status?.State ?? ''));
    if (failed) throw taskFailure(failed, service, options.image, await options.logs().catch(() => ''));
    last = tasks.map((task) => task.Status?.State ?? '?').join(', ') || last;
    why = tasks.find((task) => task.Status?.Err)?.Status?.Err ?? why;
    await sleep(POLL_MS);
  }
  throw new OpenLegionError(
    'AGENT_START_FAILED',
    `the task of service ${service} did not run within ${options.timeoutMs / 1000}s (state: ${last}${why ? `: ${why}` : ''})${
      /no suitable node/.test(why)
        ? '; the agent is pinned to the node that holds its volume (<data_dir>/swarm-placement.json): bring that node back, or delete its line there to start the agent afresh on another node'
        : `; see \`docker service ps ${service}\``
    }`,
  );
}

function taskFailure(task: SwarmTask, service: string, image: string, logs: string): OpenLegionError {
  const why = task.Status?.Err ?? task.Status?.State ?? 'failed';
  if (/no such image|image .*not found|pull access denied|manifest unknown/i.test(why)) {
    return new OpenLegionError(
      'SWARM_IMAGE_MISSING',
      `node ${task.NodeID ?? '?'} could not run image ${image} for ${service} (${why}): build it on that node (bash scripts/build-agent-image.sh) or set runtime.registry so start pushes it`,
      { details: { node: task.NodeID ?? null, image } },
    );
  }
  return new OpenLegionError(
    'AGENT_START_FAILED',
    `the task of service ${service} failed (${why})${logs.trim() ? `; its last output:\n${logs.trimEnd()}` : ''}`,
  );
}
