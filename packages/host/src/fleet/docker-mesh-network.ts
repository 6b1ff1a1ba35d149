import { createHash } from 'node:crypto';
import { OpenLegionError } from '@openlegion/protocol';
import type Dockerode from 'dockerode';
import { callEngine, engineStatusCode, ignoringAbsent } from './docker-errors.js';

/** Label on every container, network and volume of a mesh. */
export const MESH_LABEL = 'openlegion.mesh';
/** Label on an agent's container and volume. */
export const AGENT_LABEL = 'openlegion.agent';

/** The mesh's network: `openlegion-<mesh>`. */
export function meshNetworkName(mesh: string): string {
  return `openlegion-${mesh}`;
}

/**
 * The Linux bridge of the mesh's network, named so firewall rules can find it: `ol-` and 12 hex
 * digits of the mesh name's hash (interface names are at most 15 characters).
 */
export function meshBridgeName(mesh: string): string {
  return `ol-${createHash('sha256').update(mesh).digest('hex').slice(0, 12)}`;
}

/**
 * Creates the mesh's internal (no egress) bridge network, or reuses ours from an earlier run, and
 * returns its gateway: the host's address on it.
 */
export async function ensureMeshNetwork(docker: Dockerode, mesh: string): Promise<string> {
  const name = meshNetworkName(mesh);
  const existing = await inspectNetwork(docker, name);
  if (existing) return gatewayOf(existing, mesh);
  try {
    await callEngine(() =>
      docker.createNetwork({
        Name: name,
        Driver: 'bridge',
        Internal: true,
        CheckDuplicate: true,
        Labels: { [MESH_LABEL]: mesh },
        Options: {
          // Agents must not reach each other: all their traffic goes through the host.
          'com.docker.network.bridge.enable_icc': 'false',
          'com.docker.network.bridge.name': meshBridgeName(mesh),
        },
      }),
    );
  } catch (error) {
    // Another start of the same mesh won the race; use its network.
    if (engineStatusCode(error) !== 409) throw error;
  }
  const created = await inspectNetwork(docker, name);
  if (!created) throw new OpenLegionError('INTERNAL', `network ${name} vanished right after it was created`);
  return gatewayOf(created, mesh);
}

async function inspectNetwork(docker: Dockerode, name: string): Promise<Dockerode.NetworkInspectInfo | null> {
  try {
    return await callEngine(() => docker.getNetwork(name).inspect() as Promise<Dockerode.NetworkInspectInfo>);
  } catch (error) {
    if (engineStatusCode(error) === 404) return null;
    throw error;
  }
}

function gatewayOf(network: Dockerode.NetworkInspectInfo, mesh: string): string {
  if (network.Labels?.[MESH_LABEL] !== mesh || !network.Internal) {
    throw new OpenLegionError(
      'MESH_RUNTIME_UNAVAILABLE',
      `Docker network ${network.Name} exists but is not an internal network of mesh "${mesh}"; remove it (docker network rm ${network.Name}) or rename the mesh`,
    );
  }
  const gateway = network.IPAM?.Config?.find(
    (config) => config.Gateway && !config.Gateway.includes(':'),
  )?.Gateway;
  if (!gateway) {
    throw new OpenLegionError(
      'MESH_RUNTIME_UNAVAILABLE',
      `Docker network ${network.Name} has no IPv4 gateway`,
    );
  }
  return gateway;
}

/** Removes the mesh's network; a network that is already gone is fine. */
export async function removeMeshNetwork(docker: Dockerode, mesh: string): Promise<void> {
  await ignoringAbsent(() => docker.getNetwork(meshNetworkName(mesh)).remove());
}

/**
 * Removes the mesh's labelled containers and networks (not its volumes: they hold the agents'
 * memory). Returns the names removed.
 */
export async function removeMeshLeftovers(docker: Dockerode, mesh: string): Promise<string[]> {
  const filters = { label: [`${MESH_LABEL}=${mesh}`] };
  const containers = await callEngine(() => docker.listContainers({ all: true, filters }));
  await Promise.all(
    containers.map((container) =>
      ignoringAbsent(() => docker.getContainer(container.Id).remove({ force: true })),
    ),
  );
  const networks = await callEngine(() => docker.listNetworks({ filters }));
  await Promise.all(networks.map((network) => ignoringAbsent(() => docker.getNetwork(network.Id).remove())));
  return [
    ...containers.map((container) => container.Names[0]?.replace(/^\//, '') ?? container.Id),
    ...networks.map((network) => network.Name),
  ];
}
