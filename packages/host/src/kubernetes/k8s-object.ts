/** One Kubernetes object as written to YAML: kind, apiVersion, metadata and its fields. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** What the generator needs besides mesh.yaml. */
export interface K8sLayout {
  /** The namespace every object lives in (one mesh per namespace). */
  namespace: string;
  mesh: string;
  /** `registry/` prefix for images, or '' on a cluster that has them locally. */
  registryPrefix: string;
  meshPort: number;
  egressPort: number;
}

/** Labels the NetworkPolicies and RBAC select on. */
export const APP_LABEL = 'app.kubernetes.io/name';
export const COMPONENT_LABEL = 'app.kubernetes.io/component';
export const MESH_LABEL = 'openlegion.dev/mesh';
export const AGENT_LABEL = 'openlegion.dev/agent';
export const HOST_NAME = 'openlegion-host';
export const AGENT_SERVICE_ACCOUNT = 'openlegion-agent';
/** What every token Secret holds until the operator (or a future Kubernetes runtime) fills it. */
export const TOKEN_PLACEHOLDER = 'REPLACE_ME';

export function labels(
  layout: K8sLayout,
  component: 'host' | 'agent',
  agent?: string,
): Record<string, string> {
  return {
    [APP_LABEL]: 'openlegion',
    [COMPONENT_LABEL]: component,
    [MESH_LABEL]: layout.mesh,
    ...(agent ? { [AGENT_LABEL]: agent } : {}),
  };
}

export function selector(component: 'host' | 'agent'): Record<string, string> {
  return { [APP_LABEL]: 'openlegion', [COMPONENT_LABEL]: component };
}

/**
 * The docker runtime's hardening in Kubernetes' words: user 1000, no root, read-only root
 * filesystem, every capability dropped, no privilege escalation (no-new-privileges), the runtime's
 * default seccomp profile. Meets the `restricted` Pod Security Standard the namespace enforces.
 */
export const POD_SECURITY = {
  runAsUser: 1000,
  runAsGroup: 1000,
  runAsNonRoot: true,
  fsGroup: 1000,
  seccompProfile: { type: 'RuntimeDefault' },
};
export const CONTAINER_SECURITY = {
  runAsUser: 1000,
  runAsGroup: 1000,
  runAsNonRoot: true,
  readOnlyRootFilesystem: true,
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};
/** /tmp as the docker runtime's 64 MB tmpfs. */
export const TMP_VOLUME = { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } };
