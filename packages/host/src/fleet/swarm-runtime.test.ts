import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Dockerode from 'dockerode';
import { describe, expect, it } from 'vitest';
import type { AgentSpec } from './agent-runtime.js';
import { SwarmRuntime } from './swarm-runtime.js';

const MESH_LABELS = { 'openlegion.mesh': 'demo' };

const engineError = (statusCode: number, message: string) =>
  Object.assign(new Error(message), { statusCode });

/** A Docker engine answering the calls the swarm runtime makes, from a few tables. */
function fakeEngine(state: {
  swarm?: { LocalNodeState: string; ControlAvailable: boolean; NodeID?: string };
  networks?: Record<string, { Labels?: Record<string, string>; Driver?: string; Internal?: boolean }>;
  secrets?: Record<string, { Labels?: Record<string, string> }>;
  images?: string[];
  taskState?: { State: string; Err?: string };
}) {
  const calls = {
    createdSecrets: [] as Array<{ Name: string; Data: string }>,
    removedSecrets: [] as string[],
    services: [] as unknown[],
  };
  const docker = {
    info: async () => ({
      Swarm: state.swarm ?? { LocalNodeState: 'active', ControlAvailable: true, NodeID: 'n1' },
    }),
    version: async () => ({ ApiVersion: '1.41' }),
    getNetwork: (name: string) => ({
      inspect: async () => {
        const network = state.networks?.[name];
        if (!network) throw engineError(404, 'no such network');
        return { Id: `id-${name}`, Name: name, Driver: 'overlay', Internal: true, ...network };
      },
      connect: async () => {},
    }),
    createNetwork: async (options: { Name: string; Labels: Record<string, string> }) => {
      state.networks = { ...state.networks, [options.Name]: { Labels: options.Labels } };
      return { id: `id-${options.Name}` };
    },
    getContainer: () => ({
      inspect: async () => ({
        NetworkSettings: { Networks: { a: { IPAddress: '10.0.1.5' }, b: { IPAddress: '172.20.0.2' } } },
      }),
    }),
    getService: () => ({
      inspect: async () => {
        throw engineError(404, 'no such service');
      },
      remove: async () => {
        throw engineError(404, 'no such service');
      },
      logs: async () => Buffer.from(''),
    }),
    getSecret: (name: string) => ({
      inspect: async () => {
        const secret = state.secrets?.[name];
        if (!secret) throw engineError(404, 'no such secret');
        return { ID: `id-${name}`, Spec: { Name: name, ...secret } };
      },
      remove: async () => {
        calls.removedSecrets.push(name);
        delete state.secrets?.[name];
      },
    }),
    createSecret: async (options: { Name: string; Data: string }) => {
      calls.createdSecrets.push(options);
      return { ID: `id-${options.Name}` };
    },
    getImage: (image: string) => ({
      inspect: async () => {
        if (!(state.images ?? ['openlegion-agent:0.1.0']).includes(image))
          throw engineError(404, 'no such image');
        return { Config: { Entrypoint: null, Cmd: ['node', '/app/bundle/main.mjs'] } };
      },
    }),
    createService: async (spec: unknown) => {
      calls.services.push(spec);
      return {};
    },
    listTasks: async () => [
      {
        ID: 't1',
        NodeID: 'n1',
        Status: { ...(state.taskState ?? { State: 'running' }), ContainerStatus: { ContainerID: 'c1' } },
      },
    ],
    listContainers: async () => [],
  };
  return { docker: docker as unknown as Dockerode, calls };
}

function agentSpec(): AgentSpec {
  return {
    mesh: 'demo',
    agent: 'alpha',
    env: { AGENT_ID: 'alpha', MESH_URL: 'http://openlegion-demo-host:7800', MESH_TOKEN: 'tok-secret' },
    resources: { memory: '256m', cpus: 0.5, pids: 64 },
    image: 'openlegion-agent:0.1.0',
    dataDir: mkdtempSync(path.join(tmpdir(), 'ol-swarm-unit-')),
  };
}

const runtime = (docker: Dockerode, hostContainer: string | undefined = 'openlegion-demo-host') =>
  new SwarmRuntime({ docker, agents: ['alpha'], hostContainer });

describe('SwarmRuntime on bad input', () => {
  it('refuses an engine that is not in a swarm, naming docker swarm init', async () => {
    const { docker } = fakeEngine({ swarm: { LocalNodeState: 'inactive', ControlAvailable: false } });
    await expect(runtime(docker).prepare('demo')).rejects.toMatchObject({
      code: 'SWARM_NOT_MANAGER',
      message:
        'runtime.kind swarm: this Docker engine is not a swarm manager (swarm state: inactive). Run `docker swarm init --advertise-addr 127.0.0.1` for a single-node swarm, or start the mesh on a manager node',
    });
  });

  it('refuses a worker node', async () => {
    const { docker } = fakeEngine({
      swarm: { LocalNodeState: 'active', ControlAvailable: false, NodeID: 'w1' },
    });
    await expect(runtime(docker).prepare('demo')).rejects.toMatchObject({
      code: 'SWARM_NOT_MANAGER',
      message: expect.stringContaining('(swarm state: active, worker node)'),
    });
  });

  it('refuses to run the host outside its container', async () => {
    const { docker } = fakeEngine({});
    await expect(
      new SwarmRuntime({ docker, agents: ['alpha'], hostContainer: undefined }).prepare('demo'),
    ).rejects.toMatchObject({
      code: 'SWARM_HOST_NOT_IN_CONTAINER',
      message: expect.stringContaining('start the mesh with `openlegion start`'),
    });
  });

  it('refuses an overlay name another owner took', async () => {
    const { docker } = fakeEngine({ networks: { 'openlegion-demo-alpha-net': { Labels: {} } } });
    await expect(runtime(docker).prepare('demo')).rejects.toMatchObject({
      code: 'SWARM_NAME_TAKEN',
      message:
        'the swarm network openlegion-demo-alpha-net exists and is not mesh "demo"\'s; remove it (docker network rm openlegion-demo-alpha-net) or rename the mesh',
    });
  });

  it('replaces the secret a crashed run of the mesh left, and refuses one of someone else', async () => {
    const crashed = fakeEngine({ secrets: { 'openlegion-demo-alpha-env': { Labels: MESH_LABELS } } });
    const ours = runtime(crashed.docker);
    await ours.prepare('demo');
    await ours.start(agentSpec());
    expect(crashed.calls.removedSecrets).toEqual(['openlegion-demo-alpha-env']);
    expect(crashed.calls.createdSecrets.map((secret) => secret.Name)).toEqual(['openlegion-demo-alpha-env']);

    const foreign = fakeEngine({
      secrets: { 'openlegion-demo-alpha-env': { Labels: { owner: 'someone' } } },
    });
    const theirs = runtime(foreign.docker);
    await theirs.prepare('demo');
    await expect(theirs.start(agentSpec())).rejects.toMatchObject({
      code: 'SWARM_NAME_TAKEN',
      message: expect.stringContaining('remove it (docker secret rm openlegion-demo-alpha-env)'),
    });
  });

  it('says how to get the image when the manager lacks it', async () => {
    const { docker } = fakeEngine({ images: [] });
    const swarm = runtime(docker);
    await swarm.prepare('demo');
    await expect(swarm.start(agentSpec())).rejects.toMatchObject({
      code: 'SWARM_IMAGE_MISSING',
      message:
        'image openlegion-agent:0.1.0 is not on this manager: build it (bash scripts/build-agent-image.sh), and on every node that runs agents, or set runtime.registry',
    });
  });

  it('names the node whose task could not get the image', async () => {
    const { docker } = fakeEngine({
      taskState: { State: 'rejected', Err: 'No such image: openlegion-agent:0.1.0' },
    });
    const swarm = runtime(docker);
    await swarm.prepare('demo');
    await expect(swarm.start(agentSpec())).rejects.toMatchObject({
      code: 'SWARM_IMAGE_MISSING',
      message: expect.stringMatching(
        /^node n1 could not run image openlegion-agent:0\.1\.0 for openlegion-demo-alpha/,
      ),
    });
  });
});

describe('SwarmRuntime start', () => {
  it('puts the token in the secret, not the service, and reaches the agent by its service name', async () => {
    const { docker, calls } = fakeEngine({});
    const swarm = runtime(docker);
    const prepared = await swarm.prepare('demo');
    expect(prepared.hostBindAddresses).toEqual(['127.0.0.1', '10.0.1.5', '172.20.0.2']);
    expect(prepared.agentMeshUrl(7800)).toBe('http://openlegion-demo-host:7800');
    const running = await swarm.start(agentSpec());
    expect(running).toEqual({
      agent: 'alpha',
      name: 'openlegion-demo-alpha',
      url: 'http://openlegion-demo-alpha:8400',
      containerId: 'c1',
      pid: null,
    });
    expect(Buffer.from(calls.createdSecrets[0]?.Data ?? '', 'base64').toString()).toBe(
      "MESH_TOKEN='tok-secret'\n",
    );
    expect(JSON.stringify(calls.services)).not.toContain('tok-secret');
  });
});
