import { AGENT_PORT, type MeshConfig } from '@openlegion/protocol';
import { agentObjectName } from './k8s-names.js';
import {
  AGENT_SERVICE_ACCOUNT,
  CONTAINER_SECURITY,
  HOST_NAME,
  type K8sLayout,
  type K8sObject,
  labels,
  POD_SECURITY,
  TMP_VOLUME,
  TOKEN_PLACEHOLDER,
} from './k8s-object.js';
import { toK8sQuantities } from './k8s-resources.js';

/** The size each agent's /data claim asks for: the docker runtime's volume has no size of its own. */
export const AGENT_DATA_STORAGE = '1Gi';
const PROXY_TOKEN_VAR = 'OPENLEGION_PROXY_TOKEN';

/**
 * One agent: its token Secret (placeholders, never a real token), a headless Service (the
 * StatefulSet's DNS name, which the host reaches it by) and a one-replica StatefulSet with a /data
 * claim, hardened as the docker runtime hardens its container.
 */
export function agentObjects(config: MeshConfig, layout: K8sLayout, agent: string): K8sObject[] {
  const name = agentObjectName(agent);
  const meta = { name, namespace: layout.namespace, labels: labels(layout, 'agent', agent) };
  const secretName = `${name}-tokens`;
  const resources = toK8sQuantities({ ...config.runtime.resources, ...config.agents[agent]?.resources });
  const hostDns = `${HOST_NAME}.${layout.namespace}.svc`;
  // $(VAR) is expanded by the kubelet from the variable defined above it: the token stays in the Secret.
  const proxyUrl = `http://${agent}:$(${PROXY_TOKEN_VAR})@${hostDns}:${layout.egressPort}`;
  const direct = [hostDns, 'localhost', '127.0.0.1'].join(',');
  const fromSecret = (envName: string, key: string) => ({
    name: envName,
    valueFrom: { secretKeyRef: { name: secretName, key } },
  });
  return [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { ...meta, name: secretName },
      type: 'Opaque',
      stringData: { 'mesh-token': TOKEN_PLACEHOLDER, 'proxy-token': TOKEN_PLACEHOLDER },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta,
      spec: {
        clusterIP: 'None',
        selector: labels(layout, 'agent', agent),
        ports: [{ name: 'agent', port: AGENT_PORT, targetPort: AGENT_PORT, protocol: 'TCP' }],
      },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: meta,
      spec: {
        replicas: 1,
        serviceName: name,
        selector: { matchLabels: labels(layout, 'agent', agent) },
        template: {
          metadata: { labels: labels(layout, 'agent', agent) },
          spec: {
            serviceAccountName: AGENT_SERVICE_ACCOUNT,
            // The agent is hostile: it gets no credential for the Kubernetes API.
            automountServiceAccountToken: false,
            enableServiceLinks: false,
            securityContext: POD_SECURITY,
            containers: [
              {
                name: 'agent',
                image: `${layout.registryPrefix}${config.runtime.image}`,
                securityContext: CONTAINER_SECURITY,
                ports: [{ name: 'agent', containerPort: AGENT_PORT, protocol: 'TCP' }],
                env: [
                  { name: 'AGENT_ID', value: agent },
                  { name: 'MESH_URL', value: `http://${hostDns}:${layout.meshPort}` },
                  fromSecret('MESH_TOKEN', 'mesh-token'),
                  { name: 'AGENT_DATA_DIR', value: '/data' },
                  fromSecret(PROXY_TOKEN_VAR, 'proxy-token'),
                  ...['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'].map((envName) => ({
                    name: envName,
                    value: proxyUrl,
                  })),
                  { name: 'NO_PROXY', value: direct },
                  { name: 'no_proxy', value: direct },
                ],
                resources: { requests: { ...resources }, limits: { ...resources } },
                volumeMounts: [
                  { name: 'data', mountPath: '/data' },
                  { name: 'tmp', mountPath: '/tmp' },
                ],
              },
            ],
            volumes: [TMP_VOLUME],
          },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data', labels: labels(layout, 'agent', agent) },
            spec: {
              accessModes: ['ReadWriteOnce'],
              resources: { requests: { storage: AGENT_DATA_STORAGE } },
            },
          },
        ],
      },
    },
  ];
}
