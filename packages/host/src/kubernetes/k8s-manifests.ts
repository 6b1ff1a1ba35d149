import { type MeshConfig, OpenLegionError } from '@openlegion/protocol';
import { stringify } from 'yaml';
import { agentObjects } from './k8s-agent-objects.js';
import { hostObjects } from './k8s-host-objects.js';
import { k8sName } from './k8s-names.js';
import { networkPolicies } from './k8s-network-policies.js';
import type { K8sLayout, K8sObject } from './k8s-object.js';

export interface K8sManifestOptions {
  /** Defaults to `openlegion-<mesh name>`: one mesh per namespace, so policies select by label alone. */
  namespace?: string | undefined;
  /** A registry the cluster pulls from, e.g. `registry.example.com/team`; none: images as named. */
  imageRegistry?: string | undefined;
}

export interface K8sManifests {
  mesh: string;
  namespace: string;
  objects: K8sObject[];
  /** What an operator must change before applying (printed by the CLI). */
  warnings: string[];
}

/** A registry such as `host:5000/path`: no scheme, no spaces, no trailing slash. */
const REGISTRY = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d+)?(\/[a-z0-9._-]+)*$/;

/**
 * The fleet of mesh.yaml as Kubernetes objects, in the order `kubectl apply` needs (namespace
 * first). `meshYaml` is mesh.yaml's text, carried into the host's ConfigMap as written: it holds
 * secret references (`vault:`, `env:`), never secrets.
 */
export function buildK8sManifests(
  config: MeshConfig,
  meshYaml: string,
  options: K8sManifestOptions = {},
): K8sManifests {
  const mesh = config.mesh.name;
  const namespace = k8sName(options.namespace ?? `openlegion-${mesh}`, 'namespace');
  const registry = options.imageRegistry?.replace(/\/+$/, '');
  if (registry !== undefined && !REGISTRY.test(registry)) {
    throw new OpenLegionError(
      'CONFIG_INVALID',
      `image registry "${options.imageRegistry}" is not a registry like registry.example.com:5000/team (no scheme)`,
    );
  }
  const layout: K8sLayout = {
    namespace,
    mesh,
    registryPrefix: registry ? `${registry}/` : '',
    meshPort: config.mesh.port,
    egressPort: config.mesh.egress_port ?? config.mesh.port + 1,
  };
  const agents = Object.keys(config.agents);
  const objects = [
    ...hostObjects(layout, meshYaml, agents),
    ...networkPolicies(layout),
    ...agents.flatMap((agent) => agentObjects(config, layout, agent)),
  ];
  return { mesh, namespace, objects, warnings: warnings(config) };
}

function warnings(config: MeshConfig): string[] {
  const found: string[] = [];
  if (config.mesh.host !== '0.0.0.0')
    found.push(
      `mesh.host is ${config.mesh.host}: in a pod the host must listen on 0.0.0.0 for its Service to reach it; set it in the ConfigMap's mesh.yaml`,
    );
  found.push(
    'every agent-*-tokens Secret holds REPLACE_ME: create them with real tokens instead of applying the secrets file as it is (docs/scale-out.md shows the command)',
  );
  return found;
}

/** The objects as one multi-document YAML file. */
export function renderK8sManifests(objects: readonly K8sObject[]): string {
  return objects.map((object) => stringify(object, { lineWidth: 0 })).join('---\n');
}

/** One file to write: its name and its YAML. */
export interface K8sFile {
  name: string;
  text: string;
}

/**
 * The manifests as two files: `openlegion-<mesh>.yaml` with everything but the token Secrets, and
 * `openlegion-<mesh>-secrets.yaml` with their placeholders. Apart, so re-applying the fleet never
 * puts REPLACE_ME back over tokens the operator has set.
 */
export function k8sFiles(manifests: K8sManifests): K8sFile[] {
  const isSecret = (object: K8sObject) => object.kind === 'Secret';
  return [
    {
      name: `openlegion-${manifests.mesh}.yaml`,
      text: renderK8sManifests(manifests.objects.filter((object) => !isSecret(object))),
    },
    {
      name: `openlegion-${manifests.mesh}-secrets.yaml`,
      text: renderK8sManifests(manifests.objects.filter(isSecret)),
    },
  ];
}
