import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type FakeMeshHost, startFakeMeshHost } from '@openlegion/testkit';
import Dockerode from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentSpec, RunningAgent } from './agent-runtime.js';
import { probeDockerEngine } from './docker-engine-probe.js';
import { engineStatusCode } from './docker-errors.js';
import { MESH_LABEL, meshNetworkName } from './docker-mesh-network.js';
import { agentVolumeName, DockerRuntime } from './docker-runtime.js';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const IMAGE_BUILD_TIMEOUT_MS = 600_000;
const STATUS_TIMEOUT_MS = 15_000;

const engine = await probeDockerEngine();
if (!engine.reachable) {
  // CI sets OPENLEGION_REQUIRE_DOCKER=1: there a missing engine fails the file instead of skipping it.
  if (engine.required)
    throw new Error(`OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers: ${engine.reason}`);
  console.warn(`skipping DockerRuntime tests: no Docker engine answers (${engine.reason})`);
}

/** Polls `GET /status` until it answers 200; returns the body and how long it took. */
async function waitForStatus(url: string): Promise<{ body: unknown; ms: number }> {
  const startedAt = performance.now();
  for (;;) {
    try {
      const response = await fetch(`${url}/status`, { signal: AbortSignal.timeout(1_000) });
      if (response.ok) return { body: await response.json(), ms: Math.round(performance.now() - startedAt) };
    } catch {
      // Not listening yet.
    }
    if (performance.now() - startedAt > STATUS_TIMEOUT_MS) throw new Error(`${url}/status never answered`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function removeEverythingOf(docker: Dockerode, mesh: string): Promise<void> {
  const filters = { label: [`${MESH_LABEL}=${mesh}`] };
  for (const container of await docker.listContainers({ all: true, filters })) {
    await docker.getContainer(container.Id).remove({ force: true });
  }
  for (const network of await docker.listNetworks({ filters })) await docker.getNetwork(network.Id).remove();
  const { Volumes } = await docker.listVolumes({ filters });
  for (const volume of Volumes ?? []) await docker.getVolume(volume.Name).remove();
}

describe.skipIf(!engine.reachable)('DockerRuntime', () => {
  const docker = new Dockerode();
  const runtime = new DockerRuntime({ docker });
  const mesh = `fleet-test-${randomBytes(3).toString('hex')}`;
  const token = randomBytes(16).toString('hex');
  let image = '';
  let host: FakeMeshHost;
  let spec: AgentSpec;
  let agent: RunningAgent;
  let statusMs = 0;

  beforeAll(async () => {
    const build = await promisify(execFile)('bash', ['scripts/build-agent-image.sh'], {
      cwd: repoRoot,
      timeout: IMAGE_BUILD_TIMEOUT_MS,
    });
    image = build.stdout.trim();
    await runtime.cleanupLeftovers(mesh);
    const prepared = await runtime.prepare(mesh);
    host = await startFakeMeshHost({
      addresses: prepared.hostBindAddresses,
      agents: new Map([[token, { agent: 'alpha', mesh, role: 'tester', model: 'scripted/test', soul: '' }]]),
    });
    spec = {
      mesh,
      agent: 'alpha',
      env: { AGENT_ID: 'alpha', MESH_URL: prepared.agentMeshUrl(host.port), MESH_TOKEN: token },
      resources: { memory: '256m', cpus: 0.5, pids: 128 },
      image,
      dataDir: '/unused',
    };
    const startedAt = performance.now();
    agent = await runtime.start(spec);
    await waitForStatus(agent.url);
    statusMs = Math.round(performance.now() - startedAt);
  }, IMAGE_BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await host?.close();
    await runtime.stopAll();
    await runtime.teardown(mesh);
    await removeEverythingOf(docker, mesh);
    await removeEverythingOf(docker, `${mesh}-old`);
  });

  it('serves the agent /status to the host at the returned url', async () => {
    const { body } = await waitForStatus(agent.url);
    expect(body).toMatchObject({ agent: 'alpha' });
    console.info(`create → first /status 200: ${statusMs} ms`);
  });

  it('lets the agent reach the host on the mesh gateway and report ready', async () => {
    await expect(host.readyOf(token)).resolves.toMatchObject({ version: expect.any(String) });
  });

  it('runs the container hardened and limited', async () => {
    const info = await docker.getContainer(agent.name).inspect();
    expect(info.Config.User).toBe('1000');
    expect(info.HostConfig).toMatchObject({
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Init: true,
      Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=64m' },
      Memory: 256 * 1024 * 1024,
      NanoCpus: 500_000_000,
      PidsLimit: 128,
    });
    expect(info.Config.Labels).toMatchObject({ [MESH_LABEL]: mesh, 'openlegion.agent': 'alpha' });
    expect(info.Mounts).toEqual([
      expect.objectContaining({ Type: 'volume', Name: agentVolumeName(mesh, 'alpha'), Destination: '/data' }),
    ]);
  });

  it('mounts the fleet skills folder read-only at /skills and names it in AGENT_FLEET_SKILLS_DIR', async () => {
    const skillsDir = mkdtempSync(path.join(tmpdir(), 'fleet-skills-'));
    const beta = await runtime.start({
      ...spec,
      agent: 'beta',
      env: { ...spec.env, AGENT_ID: 'beta' },
      skillsDir,
    });
    try {
      const info = await docker.getContainer(beta.name).inspect();
      expect(info.Mounts).toContainEqual(
        expect.objectContaining({ Type: 'bind', Source: skillsDir, Destination: '/skills', RW: false }),
      );
      expect(info.Config.Env).toContain('AGENT_FLEET_SKILLS_DIR=/skills');
    } finally {
      await runtime.stop(beta.name);
      rmSync(skillsDir, { recursive: true, force: true });
    }
  });

  it('attaches the container only to the internal mesh network', async () => {
    const info = await docker.getContainer(agent.name).inspect();
    expect(Object.keys(info.NetworkSettings.Networks)).toEqual([meshNetworkName(mesh)]);
    const network = await docker.getNetwork(meshNetworkName(mesh)).inspect();
    expect(network.Internal).toBe(true);
  });

  it('gives the agent exactly AGENT_ID, MESH_URL and MESH_TOKEN beyond the image defaults', async () => {
    const info = await docker.getContainer(agent.name).inspect();
    const imageEnv = new Set((await docker.getImage(image).inspect()).Config.Env);
    const added = info.Config.Env.filter((entry) => !imageEnv.has(entry)).sort();
    expect(added).toEqual([`AGENT_ID=alpha`, `MESH_TOKEN=${token}`, `MESH_URL=${spec.env.MESH_URL}`]);
  });

  it('returns the last lines of the agent output', async () => {
    const lines = (await runtime.logs(agent.name, 2)).trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(lines[0]).not.toBe('');
  });

  it('starts again on the same volume after the container was killed', async () => {
    // @types/dockerode lacks CreatedAt, which the engine does return.
    const createdAt = async () =>
      ((await docker.getVolume(agentVolumeName(mesh, 'alpha')).inspect()) as { CreatedAt?: string })
        .CreatedAt;
    const volumeBefore = await createdAt();
    expect(volumeBefore).toEqual(expect.any(String));
    await docker.getContainer(agent.name).kill();
    const startedAt = performance.now();
    agent = await runtime.start(spec);
    const { ms } = await waitForStatus(agent.url);
    console.info(
      `restart after kill: start ${Math.round(performance.now() - startedAt - ms)} ms + ${ms} ms to /status`,
    );
    expect(await createdAt()).toBe(volumeBefore);
  });

  it('removes containers and networks a crashed run left, but keeps volumes', async () => {
    const oldMesh = `${mesh}-old`;
    await new DockerRuntime({ docker }).prepare(oldMesh);
    const labels = { [MESH_LABEL]: oldMesh, 'openlegion.agent': 'ghost' };
    await docker.createVolume({ Name: agentVolumeName(oldMesh, 'ghost'), Labels: labels });
    await docker.createContainer({ name: `openlegion-${oldMesh}-ghost`, Image: image, Labels: labels });
    const removed = await runtime.cleanupLeftovers(oldMesh);
    expect(removed.sort()).toEqual([`openlegion-${oldMesh}`, `openlegion-${oldMesh}-ghost`]);
    const left = await docker.listContainers({ all: true, filters: { label: [`${MESH_LABEL}=${oldMesh}`] } });
    expect(left).toEqual([]);
    await expect(docker.getVolume(agentVolumeName(oldMesh, 'ghost')).inspect()).resolves.toBeDefined();
  });

  it('leaves no container or network after stopAll and teardown', async () => {
    await runtime.stopAll();
    await runtime.teardown(mesh);
    const left = await docker.listContainers({ all: true, filters: { label: [`${MESH_LABEL}=${mesh}`] } });
    expect(left).toEqual([]);
    const networkStatus = await docker
      .getNetwork(meshNetworkName(mesh))
      .inspect()
      .then(
        () => 200,
        (error: unknown) => engineStatusCode(error),
      );
    expect(networkStatus).toBe(404);
  });
});
