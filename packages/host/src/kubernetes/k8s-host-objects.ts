import { agentObjectName } from './k8s-names.js';
import {
  AGENT_SERVICE_ACCOUNT,
  APP_LABEL,
  CONTAINER_SECURITY,
  HOST_NAME,
  type K8sLayout,
  type K8sObject,
  labels,
  POD_SECURITY,
  selector,
  TMP_VOLUME,
} from './k8s-object.js';

/** The host image: none is built yet (issue 24's swarm part builds one); the name is its intended tag. */
export const HOST_IMAGE = 'openlegion-host:latest';
/** The host's working folder: mesh.yaml (from the ConfigMap) and its data dir beside it, on a claim. */
const HOST_HOME = '/openlegion';
const HOST_DATA_STORAGE = '5Gi';
/** The host holds vault, mesh.db and every agent's lane: more than one agent's share. */
const HOST_RESOURCES = { cpu: '1', memory: '1Gi' };

/**
 * The namespace (Pod Security `restricted` enforced), the host's and the agents' ServiceAccounts,
 * the host's Role and RoleBinding, its mesh.yaml as a ConfigMap, its data claim, its Deployment and
 * its Service.
 */
export function hostObjects(layout: K8sLayout, meshYaml: string, agents: readonly string[]): K8sObject[] {
  const ns = layout.namespace;
  const meta = (name: string) => ({ name, namespace: ns, labels: labels(layout, 'host') });
  return [
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: ns,
        labels: {
          [APP_LABEL]: 'openlegion',
          'pod-security.kubernetes.io/enforce': 'restricted',
        },
      },
    },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(HOST_NAME) },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { ...meta(AGENT_SERVICE_ACCOUNT), labels: labels(layout, 'agent') },
      automountServiceAccountToken: false,
    },
    hostRole(layout, agents),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: meta(HOST_NAME),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: HOST_NAME },
      subjects: [{ kind: 'ServiceAccount', name: HOST_NAME, namespace: ns }],
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta(`${HOST_NAME}-config`),
      data: { 'mesh.yaml': meshYaml },
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: meta(`${HOST_NAME}-data`),
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: HOST_DATA_STORAGE } } },
    },
    hostDeployment(layout),
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(HOST_NAME),
      spec: {
        selector: selector('host'),
        ports: [
          { name: 'mesh', port: layout.meshPort, targetPort: layout.meshPort, protocol: 'TCP' },
          { name: 'egress', port: layout.egressPort, targetPort: layout.egressPort, protocol: 'TCP' },
        ],
      },
    },
  ];
}

/**
 * What a host managing its agents in this namespace would need, and no more: the agents'
 * StatefulSets and headless Services, their pods and logs (status, restart), their /data claims
 * (removed only when asked), and their token Secrets by name (a created Secret cannot be limited by
 * name, so `create` is separate). Nothing cluster-wide, nothing in another namespace.
 */
function hostRole(layout: K8sLayout, agents: readonly string[]): K8sObject {
  const tokenSecrets = agents.map((agent) => `${agentObjectName(agent)}-tokens`);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: HOST_NAME, namespace: layout.namespace, labels: labels(layout, 'host') },
    rules: [
      {
        apiGroups: ['apps'],
        resources: ['statefulsets'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      },
      {
        apiGroups: [''],
        resources: ['services'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
      },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'delete'] },
      { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get', 'list', 'delete'] },
      { apiGroups: [''], resources: ['events'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: tokenSecrets,
        verbs: ['get', 'update', 'patch', 'delete'],
      },
    ],
  };
}

/** The host: one replica, replaced not rolled (one writer of mesh.db), as hardened as an agent. */
function hostDeployment(layout: K8sLayout): K8sObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: HOST_NAME, namespace: layout.namespace, labels: labels(layout, 'host') },
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: selector('host') },
      template: {
        metadata: { labels: labels(layout, 'host') },
        spec: {
          serviceAccountName: HOST_NAME,
          enableServiceLinks: false,
          securityContext: POD_SECURITY,
          containers: [
            {
              name: 'host',
              image: `${layout.registryPrefix}${HOST_IMAGE}`,
              command: ['openlegion'],
              args: ['start', '--config', `${HOST_HOME}/mesh.yaml`],
              workingDir: HOST_HOME,
              securityContext: CONTAINER_SECURITY,
              ports: [
                { name: 'mesh', containerPort: layout.meshPort, protocol: 'TCP' },
                { name: 'egress', containerPort: layout.egressPort, protocol: 'TCP' },
              ],
              // `/healthz` needs no token; the kubelet's probe comes from the node, not through the policies.
              readinessProbe: { httpGet: { path: '/healthz', port: 'mesh' }, periodSeconds: 5 },
              resources: { requests: HOST_RESOURCES, limits: HOST_RESOURCES },
              volumeMounts: [
                { name: 'home', mountPath: HOST_HOME },
                { name: 'config', mountPath: `${HOST_HOME}/mesh.yaml`, subPath: 'mesh.yaml', readOnly: true },
                { name: 'tmp', mountPath: '/tmp' },
              ],
            },
          ],
          volumes: [
            { name: 'home', persistentVolumeClaim: { claimName: `${HOST_NAME}-data` } },
            { name: 'config', configMap: { name: `${HOST_NAME}-config` } },
            TMP_VOLUME,
          ],
        },
      },
    },
  };
}
