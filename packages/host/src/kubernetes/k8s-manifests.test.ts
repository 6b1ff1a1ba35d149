import { isOpenLegionError } from '@openlegion/protocol';
import { Deployment, type IDeployment, type IStatefulSet, StatefulSet } from 'kubernetes-models/apps/v1';
import {
  type INetworkPolicy,
  type INetworkPolicyPeer,
  NetworkPolicy,
} from 'kubernetes-models/networking.k8s.io/v1';
import {
  type IRole,
  type IRoleBinding,
  Role,
  RoleBinding,
} from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import {
  ConfigMap,
  type IConfigMap,
  type IContainer,
  type ISecret,
  Namespace,
  PersistentVolumeClaim,
  Secret,
  Service,
  ServiceAccount,
} from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseMeshConfig } from '../config/index.js';
import { buildK8sManifests, isDns1123Label, type K8sObject, k8sFiles, renderK8sManifests } from './index.js';

const MESH_YAML = `
mesh: { name: research, port: 8420 }
runtime:
  image: openlegion-agent:0.1.0
  resources: { memory: 512m, cpus: 0.5 }
llm:
  providers:
    openai: { api_key: env:K8S_TEST_OPENAI_KEY }
  tiers: { default: openai/gpt-4o-mini }
agents:
  researcher: { resources: { memory: 1g, cpus: 2 } }
  writer: {}
`;

/** Each kind's model class: constructing and validating it checks the object against the API schema. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ServiceAccount': ServiceAccount,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'apps/v1/StatefulSet': StatefulSet,
  'apps/v1/Deployment': Deployment,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

function manifests(options: Parameters<typeof buildK8sManifests>[2] = {}) {
  return buildK8sManifests(parseMeshConfig(MESH_YAML), MESH_YAML, options);
}

/** The object of that kind and name, typed by its model's interface (the schema test checks the shape). */
function find<T>(objects: K8sObject[], kind: string, name: string): T {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found as unknown as T;
}

/** The one container of a pod template. */
function containerOf(workload: IStatefulSet | IDeployment): IContainer {
  const container = workload.spec?.template.spec?.containers[0];
  if (!container) throw new Error('no container');
  return container;
}

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('buildK8sManifests', () => {
  it('writes objects every one of which the Kubernetes API schema accepts', () => {
    const { objects } = manifests();
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`)).toEqual([
      'Namespace/openlegion-research',
      'ServiceAccount/openlegion-host',
      'ServiceAccount/openlegion-agent',
      'Role/openlegion-host',
      'RoleBinding/openlegion-host',
      'ConfigMap/openlegion-host-config',
      'PersistentVolumeClaim/openlegion-host-data',
      'Deployment/openlegion-host',
      'Service/openlegion-host',
      'NetworkPolicy/default-deny',
      'NetworkPolicy/agents-lockdown',
      'NetworkPolicy/host-traffic',
      'Secret/agent-researcher-tokens',
      'Service/agent-researcher',
      'StatefulSet/agent-researcher',
      'Secret/agent-writer-tokens',
      'Service/agent-writer',
      'StatefulSet/agent-writer',
    ]);
    // Through YAML and back, as kubectl would read the file.
    const documents = parseAllDocuments(renderK8sManifests(objects)).map((doc) => doc.toJS() as K8sObject);
    expect(documents).toEqual(objects);
    for (const object of documents) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      if (!Model) throw new Error(`no model for ${object.apiVersion} ${object.kind}`);
      expect(
        () => new Model(object as never).validate(),
        `${object.kind}/${object.metadata.name}`,
      ).not.toThrow();
    }
  });

  it('the schema check bites: a mistyped field is refused', () => {
    const set = structuredClone(find<IStatefulSet>(manifests().objects, 'StatefulSet', 'agent-writer'));
    const broken = { ...set, spec: { ...set.spec, replicas: 'one' } };
    expect(() => new StatefulSet(broken as never).validate()).toThrow(/replicas/);
  });

  it('hardens each agent as the docker runtime does, with its resources from mesh.yaml', () => {
    const { objects } = manifests();
    const set = find<IStatefulSet>(objects, 'StatefulSet', 'agent-researcher');
    const pod = set.spec?.template.spec;
    const container = containerOf(set);
    expect(set.spec?.replicas).toBe(1);
    expect(pod?.automountServiceAccountToken).toBe(false);
    expect(pod?.securityContext).toMatchObject({
      runAsUser: 1000,
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext).toEqual({
      runAsUser: 1000,
      runAsGroup: 1000,
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    // agents.researcher.resources over runtime.resources; limits equal requests (Guaranteed).
    expect(container.resources).toEqual({
      requests: { memory: '1024Mi', cpu: '2000m' },
      limits: { memory: '1024Mi', cpu: '2000m' },
    });
    const writer = containerOf(find<IStatefulSet>(objects, 'StatefulSet', 'agent-writer'));
    expect(writer.resources?.limits).toEqual({ memory: '512Mi', cpu: '500m' });
    expect(container.image).toBe('openlegion-agent:0.1.0');
    expect(container.volumeMounts).toContainEqual({ name: 'data', mountPath: '/data' });
    const [claim] = set.spec?.volumeClaimTemplates ?? [];
    expect(claim?.metadata?.name).toBe('data');
    expect(claim?.spec?.accessModes).toEqual(['ReadWriteOnce']);
    const host = containerOf(find<IDeployment>(objects, 'Deployment', 'openlegion-host'));
    expect(host.securityContext).toEqual(container.securityContext);
    expect(host.readinessProbe?.httpGet).toEqual({ path: '/healthz', port: 'mesh' });
  });

  it('gives an agent the environment the docker runtime gives it, the tokens only by secretKeyRef', () => {
    const env =
      containerOf(find<IStatefulSet>(manifests().objects, 'StatefulSet', 'agent-researcher')).env ?? [];
    const byName = Object.fromEntries(env.map((entry) => [entry.name, entry]));
    expect(byName.AGENT_ID?.value).toBe('researcher');
    expect(byName.MESH_URL?.value).toBe('http://openlegion-host.openlegion-research.svc:8420');
    expect(byName.AGENT_DATA_DIR?.value).toBe('/data');
    expect(byName.MESH_TOKEN).toEqual({
      name: 'MESH_TOKEN',
      valueFrom: { secretKeyRef: { name: 'agent-researcher-tokens', key: 'mesh-token' } },
    });
    expect(byName.OPENLEGION_PROXY_TOKEN?.valueFrom).toEqual({
      secretKeyRef: { name: 'agent-researcher-tokens', key: 'proxy-token' },
    });
    // The proxy URL names the token variable, expanded by the kubelet: no token in the object.
    expect(byName.HTTPS_PROXY?.value).toBe(
      'http://researcher:$(OPENLEGION_PROXY_TOKEN)@openlegion-host.openlegion-research.svc:8421',
    );
    // A variable must be defined before one that refers to it.
    expect(env.findIndex((entry) => entry.name === 'OPENLEGION_PROXY_TOKEN')).toBeLessThan(
      env.findIndex((entry) => entry.name === 'HTTPS_PROXY'),
    );
  });

  it('never writes a secret: token Secrets hold REPLACE_ME, and a provider key mesh.yaml refers to stays out', () => {
    process.env.K8S_TEST_OPENAI_KEY = 'sk-real-key-never-printed';
    try {
      const { objects, warnings } = manifests();
      expect(renderK8sManifests(objects)).not.toContain('sk-real-key-never-printed');
      const secrets = objects.filter((object) => object.kind === 'Secret') as unknown as ISecret[];
      expect(secrets).toHaveLength(2);
      for (const secret of secrets)
        expect(secret.stringData).toEqual({ 'mesh-token': 'REPLACE_ME', 'proxy-token': 'REPLACE_ME' });
      // The ConfigMap carries mesh.yaml's reference, not the value.
      const config = find<IConfigMap>(objects, 'ConfigMap', 'openlegion-host-config');
      expect(config.data?.['mesh.yaml']).toContain('env:K8S_TEST_OPENAI_KEY');
      expect(warnings.join('\n')).toContain('REPLACE_ME');
      // No container takes a token as a literal value.
      for (const set of objects.filter(
        (object) => object.kind === 'StatefulSet',
      ) as unknown as IStatefulSet[])
        for (const entry of containerOf(set).env ?? [])
          if (/TOKEN/.test(entry.name)) expect(entry.value).toBeUndefined();
    } finally {
      delete process.env.K8S_TEST_OPENAI_KEY;
    }
  });

  it('locks agents down: ingress only from the host, egress only to its two ports and DNS', () => {
    const { objects } = manifests();
    const deny = find<INetworkPolicy>(objects, 'NetworkPolicy', 'default-deny');
    expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const agents = find<INetworkPolicy>(objects, 'NetworkPolicy', 'agents-lockdown');
    const agentSelector = { 'app.kubernetes.io/name': 'openlegion', 'app.kubernetes.io/component': 'agent' };
    const hostSelector = { 'app.kubernetes.io/name': 'openlegion', 'app.kubernetes.io/component': 'host' };
    expect(agents.spec?.podSelector.matchLabels).toEqual(agentSelector);
    expect(agents.spec?.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(agents.spec?.ingress).toEqual([
      { from: [{ podSelector: { matchLabels: hostSelector } }], ports: [{ protocol: 'TCP', port: 8400 }] },
    ]);
    const egress = agents.spec?.egress ?? [];
    expect(egress).toHaveLength(2);
    expect(egress[0]).toEqual({
      to: [{ podSelector: { matchLabels: hostSelector } }],
      ports: [
        { protocol: 'TCP', port: 8420 },
        { protocol: 'TCP', port: 8421 },
      ],
    });
    expect(egress[1]?.to?.[0]?.namespaceSelector?.matchLabels).toEqual({
      'kubernetes.io/metadata.name': 'kube-system',
    });
    expect(egress[1]?.ports?.map((port) => port.port)).toEqual([53, 53]);
    // No rule in either direction has agent pods as its peer: agent to agent is denied.
    const peers: INetworkPolicyPeer[] = [
      ...(agents.spec?.ingress ?? []).flatMap((rule) => rule.from ?? []),
      ...egress.flatMap((rule) => rule.to ?? []),
    ];
    expect(
      peers.filter((peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/component'] === 'agent'),
    ).toEqual([]);
    // Every agent pod carries the labels the policy selects on.
    for (const set of objects.filter((object) => object.kind === 'StatefulSet') as unknown as IStatefulSet[])
      expect(set.spec?.template.metadata?.labels).toMatchObject(agentSelector);
  });

  it("limits the host's traffic and its Role to its own namespace's agents", () => {
    const { objects } = manifests();
    const host = find<INetworkPolicy>(objects, 'NetworkPolicy', 'host-traffic');
    expect(host.spec?.ingress).toHaveLength(1);
    expect(
      host.spec?.ingress?.[0]?.from?.[0]?.podSelector?.matchLabels?.['app.kubernetes.io/component'],
    ).toBe('agent');
    expect(host.spec?.egress?.map((rule) => rule.ports?.map((port) => port.port))).toEqual([
      [8400],
      [53, 53],
      [443, 80],
    ]);
    const role = find<IRole>(objects, 'Role', 'openlegion-host');
    const rules = role.rules ?? [];
    expect(role.metadata?.namespace).toBe('openlegion-research');
    expect(rules.flatMap((rule) => rule.verbs)).not.toContain('*');
    expect(rules.find((rule) => rule.resourceNames)?.resourceNames).toEqual([
      'agent-researcher-tokens',
      'agent-writer-tokens',
    ]);
    expect(rules.find((rule) => rule.resources?.includes('statefulsets'))?.apiGroups).toEqual(['apps']);
    const binding = find<IRoleBinding>(objects, 'RoleBinding', 'openlegion-host');
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'openlegion-host', namespace: 'openlegion-research' },
    ]);
  });

  it('names every object with a valid DNS-1123 name in the namespace asked for, images from the registry', () => {
    const { objects, namespace } = manifests({
      namespace: 'fleet-a',
      imageRegistry: 'registry.example.com:5000/team/',
    });
    expect(namespace).toBe('fleet-a');
    for (const object of objects) {
      expect(isDns1123Label(object.metadata.name), object.metadata.name).toBe(true);
      if (object.kind !== 'Namespace') expect(object.metadata.namespace).toBe('fleet-a');
    }
    const writer = containerOf(find<IStatefulSet>(objects, 'StatefulSet', 'agent-writer'));
    expect(writer.image).toBe('registry.example.com:5000/team/openlegion-agent:0.1.0');
    expect(writer.env).toContainEqual({ name: 'MESH_URL', value: 'http://openlegion-host.fleet-a.svc:8420' });
  });

  it('refuses a namespace or registry Kubernetes would refuse, naming the rule', () => {
    const bad = thrown(() => manifests({ namespace: 'Fleet_A' }));
    expect(isOpenLegionError(bad) && bad.code).toBe('CONFIG_INVALID');
    expect((bad as Error).message).toBe(
      'namespace "Fleet_A" is not a valid Kubernetes name: use at most 63 lower-case letters, digits and "-", starting and ending with a letter or digit',
    );
    const registry = thrown(() => manifests({ imageRegistry: 'https://registry.example.com' }));
    expect(isOpenLegionError(registry) && registry.code).toBe('CONFIG_INVALID');
    expect((registry as Error).message).toBe(
      'image registry "https://registry.example.com" is not a registry like registry.example.com:5000/team (no scheme)',
    );
  });

  it('refuses an agent name that is no Kubernetes name (mesh.yaml refuses it first)', () => {
    const error = thrown(() => parseMeshConfig(MESH_YAML.replace('writer: {}', 'Writer_2: {}')));
    expect(isOpenLegionError(error) && error.code).toBe('CONFIG_INVALID');
    expect((error as Error).message).toContain('agents.Writer_2');
    // A config made in code is checked by the generator itself.
    const config = parseMeshConfig(MESH_YAML);
    const forged = {
      ...config,
      agents: { ...config.agents, 'writer-': config.agents.writer },
    } as typeof config;
    const refused = thrown(() => buildK8sManifests(forged, MESH_YAML));
    expect(isOpenLegionError(refused) && refused.code).toBe('CONFIG_INVALID');
    expect((refused as Error).message).toBe(
      'agent "writer-" gives the object name "agent-writer-" is not a valid Kubernetes name: use at most 52 lower-case letters, digits and "-", starting and ending with a letter or digit',
    );
  });

  it('refuses unknown runtime fields in mesh.yaml', () => {
    const yaml = MESH_YAML.replace('image: openlegion-agent:0.1.0', 'image: x\n  replicas: 3');
    const error = thrown(() => parseMeshConfig(yaml));
    expect(isOpenLegionError(error) && error.code).toBe('CONFIG_INVALID');
    expect((error as Error).message).toMatch(/runtime.*replicas/);
  });

  it('warns when mesh.host is loopback, which a pod cannot be reached on', () => {
    expect(manifests().warnings[0]).toBe(
      "mesh.host is 127.0.0.1: in a pod the host must listen on 0.0.0.0 for its Service to reach it; set it in the ConfigMap's mesh.yaml",
    );
    const open = MESH_YAML.replace('port: 8420', 'port: 8420, host: 0.0.0.0');
    expect(buildK8sManifests(parseMeshConfig(open), open).warnings).toHaveLength(1);
  });

  it('splits the token Secrets into their own file, so re-applying the fleet never resets them', () => {
    const files = k8sFiles(manifests());
    expect(files.map((file) => file.name)).toEqual([
      'openlegion-research.yaml',
      'openlegion-research-secrets.yaml',
    ]);
    const kinds = (text: string) => parseAllDocuments(text).map((doc) => (doc.toJS() as K8sObject).kind);
    expect(kinds(files[0]?.text ?? '')).not.toContain('Secret');
    expect(kinds(files[0]?.text ?? '')).toHaveLength(16);
    expect(kinds(files[1]?.text ?? '')).toEqual(['Secret', 'Secret']);
  });
});
