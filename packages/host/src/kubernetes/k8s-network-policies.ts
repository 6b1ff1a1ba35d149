import { AGENT_PORT } from '@openlegion/protocol';
import { type K8sLayout, type K8sObject, labels, selector } from './k8s-object.js';

const DNS_PORT = 53;
/** Where the host's outside traffic goes: providers, and what its egress proxy lets agents reach. */
const HOST_OUTSIDE_PORTS = [443, 80];

/**
 * The lockdown as NetworkPolicies (enforced only by a CNI that implements them):
 * - everything in the namespace is denied both ways unless a policy below allows it;
 * - agents: ingress only from the host on the agent port; egress only to the host's mesh and
 *   egress-proxy ports, and DNS. Agent to agent is allowed by neither side;
 * - the host: ingress only from agents on those two ports (the operator comes in through
 *   `kubectl port-forward`); egress to agents, DNS and the outside on HTTPS/HTTP.
 */
export function networkPolicies(layout: K8sLayout): K8sObject[] {
  const meta = (name: string) => ({ name, namespace: layout.namespace, labels: labels(layout, 'host') });
  const host = { podSelector: { matchLabels: selector('host') } };
  const agents = { podSelector: { matchLabels: selector('agent') } };
  const dns = {
    to: [
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
        podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
      },
    ],
    ports: [
      { protocol: 'UDP', port: DNS_PORT },
      { protocol: 'TCP', port: DNS_PORT },
    ],
  };
  const hostPorts = [
    { protocol: 'TCP', port: layout.meshPort },
    { protocol: 'TCP', port: layout.egressPort },
  ];
  return [
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: meta('default-deny'),
      spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: meta('agents-lockdown'),
      spec: {
        podSelector: { matchLabels: selector('agent') },
        policyTypes: ['Ingress', 'Egress'],
        ingress: [{ from: [host], ports: [{ protocol: 'TCP', port: AGENT_PORT }] }],
        egress: [{ to: [host], ports: hostPorts }, dns],
      },
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: meta('host-traffic'),
      spec: {
        podSelector: { matchLabels: selector('host') },
        policyTypes: ['Ingress', 'Egress'],
        ingress: [{ from: [agents], ports: hostPorts }],
        egress: [
          { to: [agents], ports: [{ protocol: 'TCP', port: AGENT_PORT }] },
          dns,
          {
            to: [{ ipBlock: { cidr: '0.0.0.0/0' } }],
            ports: HOST_OUTSIDE_PORTS.map((port) => ({ protocol: 'TCP', port })),
          },
        ],
      },
    },
  ];
}
