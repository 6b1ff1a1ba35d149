import { describe, expect, it } from 'vitest';
import type { AgentSpec } from './agent-runtime.js';
import {
  buildAgentServiceSpec,
  envFileText,
  splitAgentEnv,
  supportsNoNewPrivileges,
  swarmAgentNames,
} from './swarm-service-spec.js';

const spec: AgentSpec = {
  mesh: 'demo',
  agent: 'alpha',
  env: {
    AGENT_ID: 'alpha',
    MESH_URL: 'http://openlegion-demo-host:7800',
    MESH_TOKEN: 'mesh-secret-token',
    HTTP_PROXY: 'http://alpha:proxy-secret@openlegion-demo-host:7801',
    HTTPS_PROXY: 'http://alpha:proxy-secret@openlegion-demo-host:7801',
    http_proxy: 'http://alpha:proxy-secret@openlegion-demo-host:7801',
    https_proxy: 'http://alpha:proxy-secret@openlegion-demo-host:7801',
    NO_PROXY: 'openlegion-demo-host,localhost,127.0.0.1',
  },
  resources: { memory: '512m', cpus: 0.5, pids: 128 },
  image: 'openlegion-agent:0.1.0',
  dataDir: '/srv/demo/data',
};

const build = (overrides: Partial<Parameters<typeof buildAgentServiceSpec>[0]> = {}) =>
  buildAgentServiceSpec({
    spec,
    secretId: 'sec123',
    nodeId: 'node1',
    imageCommand: ['node', '/app/bundle/main.mjs'],
    image: 'openlegion-agent:0.1.0',
    noNewPrivileges: false,
    ...overrides,
  });

function containerSpec(service: ReturnType<typeof build>) {
  const template = service.TaskTemplate;
  if (!template || !('ContainerSpec' in template) || !template.ContainerSpec)
    throw new Error('no ContainerSpec');
  return { template, container: template.ContainerSpec };
}

describe('buildAgentServiceSpec', () => {
  it('runs one replica, hardened as the docker runtime: user 1000, read-only root, no capabilities, an init', () => {
    const service = build();
    const { container } = containerSpec(service);
    expect(service.Name).toBe('openlegion-demo-alpha');
    expect(service.Mode).toEqual({ Replicated: { Replicas: 1 } });
    expect(container.User).toBe('1000');
    expect(container.ReadOnly).toBe(true);
    expect(container.CapabilityDrop).toEqual(['ALL']);
    expect(container.CapabilityAdd).toBeUndefined();
    expect(container.Init).toBe(true);
    expect(container.Mounts).toContainEqual(
      expect.objectContaining({
        Type: 'tmpfs',
        Target: '/tmp',
        TmpfsOptions: { SizeBytes: 64 * 1024 ** 2, Mode: 0o1777 },
      }),
    );
  });

  it('sets no-new-privileges only where the engine supports it for services (API 1.44+)', () => {
    expect(containerSpec(build()).container.Privileges).toBeUndefined();
    expect(containerSpec(build({ noNewPrivileges: true })).container.Privileges).toEqual({
      NoNewPrivileges: true,
    });
    expect(supportsNoNewPrivileges('1.41')).toBe(false);
    expect(supportsNoNewPrivileges('1.44')).toBe(true);
    expect(supportsNoNewPrivileges('1.47')).toBe(true);
    expect(supportsNoNewPrivileges('2.0')).toBe(true);
  });

  it('keeps every credential out of env and labels: they come from the swarm secret file', () => {
    const service = build();
    const { container } = containerSpec(service);
    const visible = JSON.stringify({
      env: container.Env,
      labels: container.Labels,
      serviceLabels: service.Labels,
    });
    expect(visible).not.toContain('mesh-secret-token');
    expect(visible).not.toContain('proxy-secret');
    expect(container.Env).toEqual([
      'AGENT_ID=alpha',
      'MESH_URL=http://openlegion-demo-host:7800',
      'NO_PROXY=openlegion-demo-host,localhost,127.0.0.1',
    ]);
    expect(container.Secrets).toEqual([
      {
        SecretID: 'sec123',
        SecretName: 'openlegion-demo-alpha-env',
        File: { Name: 'openlegion-env', UID: '1000', GID: '1000', Mode: 0o400 },
      },
    ]);
    // The image's command runs after the secret file is sourced into the environment.
    expect(container.Command).toEqual([
      '/bin/sh',
      '-c',
      'set -a && . "$0" && set +a && exec "$@"',
      '/run/secrets/openlegion-env',
    ]);
    expect(container.Args).toEqual(['node', '/app/bundle/main.mjs']);
  });

  it('turns resources into service limits', () => {
    const { template } = containerSpec(build());
    expect(template.Resources).toEqual({
      Limits: { NanoCPUs: 500_000_000, MemoryBytes: 512 * 1024 ** 2, Pids: 128 },
    });
  });

  it('pins the task to the node holding its volume, on its own overlay, without a virtual IP', () => {
    const service = build({ nodeId: 'n-42' });
    const { template, container } = containerSpec(service);
    expect(template.Placement).toEqual({ Constraints: ['node.id==n-42'] });
    expect(template.Networks).toEqual([{ Target: 'openlegion-demo-alpha-net' }]);
    expect(service.EndpointSpec).toEqual({ Mode: 'dnsrr' });
    expect(template.RestartPolicy).toMatchObject({ Condition: 'any' });
    expect(container.Mounts).toContainEqual(
      expect.objectContaining({ Type: 'volume', Source: 'openlegion-demo-alpha-data', Target: '/data' }),
    );
  });

  it('mounts the fleet skills read-only and names them in the environment', () => {
    const { container } = containerSpec(build({ spec: { ...spec, skillsDir: '/srv/demo/skills' } }));
    expect(container.Mounts).toContainEqual({
      Type: 'bind',
      Source: '/srv/demo/skills',
      Target: '/skills',
      ReadOnly: true,
    });
    expect(container.Env).toContain('AGENT_FLEET_SKILLS_DIR=/skills');
  });

  it('uses the registry-qualified image it is given', () => {
    const { container } = containerSpec(build({ image: 'registry.local:5000/openlegion-agent:0.1.0' }));
    expect(container.Image).toBe('registry.local:5000/openlegion-agent:0.1.0');
  });
});

describe('the secret environment file', () => {
  it('holds exactly the credential variables, quoted for a POSIX shell', () => {
    const { secret, plain } = splitAgentEnv(spec.env);
    expect(Object.keys(secret).sort()).toEqual([
      'HTTPS_PROXY',
      'HTTP_PROXY',
      'MESH_TOKEN',
      'http_proxy',
      'https_proxy',
    ]);
    expect(Object.keys(plain).sort()).toEqual(['AGENT_ID', 'MESH_URL', 'NO_PROXY']);
    expect(envFileText({ MESH_TOKEN: "a'b" })).toBe(`MESH_TOKEN='a'"'"'b'\n`);
  });

  it('names every object after the agent', () => {
    expect(swarmAgentNames('demo', 'alpha')).toEqual({
      service: 'openlegion-demo-alpha',
      network: 'openlegion-demo-alpha-net',
      secret: 'openlegion-demo-alpha-env',
      volume: 'openlegion-demo-alpha-data',
    });
  });
});
