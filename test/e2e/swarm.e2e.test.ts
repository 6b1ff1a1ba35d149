import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docker, dockerAnswers } from './support/docker-cli.js';
import { freePort } from './support/e2e-mesh.js';
import { REPO_ROOT, runCli } from './support/run-cli.js';
import { waitUntil } from './support/wait-until.js';

const exec = promisify(execFile);
const haveDocker = await dockerAnswers();
if (process.env.OPENLEGION_REQUIRE_DOCKER === '1' && !haveDocker) {
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');
}

const REPLY = 'Hello from the swarm, through the host container.';
const AGENT_IMAGE = process.env.OPENLEGION_E2E_AGENT_IMAGE ?? 'openlegion-agent:latest';

/** Lines of `docker <args>` output, empty ones dropped. */
const lines = async (...args: string[]) => (await docker(...args)).split('\n').filter(Boolean);

/** The running task container of a service on this node. */
async function taskContainer(service: string): Promise<string | undefined> {
  return (await lines('ps', '-q', '--filter', `label=com.docker.swarm.service.name=${service}`))[0];
}

/** Everything of the mesh the engine still holds, by kind. */
async function swarmLeftovers(mesh: string) {
  const filter = `label=openlegion.mesh=${mesh}`;
  return {
    services: await lines('service', 'ls', '--filter', filter, '--format', '{{.Name}}'),
    secrets: await lines('secret', 'ls', '--filter', filter, '--format', '{{.Name}}'),
    networks: await lines('network', 'ls', '--filter', filter, '--format', '{{.Name}}'),
    containers: await lines('ps', '-a', '--filter', filter, '--format', '{{.Names}}'),
  };
}

/** Runs a Node script inside a container; resolves to its stdout parsed as JSON. */
async function nodeIn(container: string, script: string): Promise<Record<string, string>> {
  const { stdout } = await exec('docker', ['exec', container, 'node', '-e', script], { timeout: 30_000 });
  return JSON.parse(stdout) as Record<string, string>;
}

/**
 * From inside a task: how far a connection gets. "connected" or the error code; a connection that
 * neither opens nor fails within 2 s is "timeout".
 */
const PROBE = `
const net = require('node:net');
const dns = require('node:dns').promises;
const probe = (host, port) => new Promise((resolve) => {
  const socket = net.connect({ host, port });
  const timer = setTimeout(() => { socket.destroy(); resolve('timeout'); }, 2000);
  socket.once('connect', () => { clearTimeout(timer); socket.destroy(); resolve('connected'); });
  socket.once('error', (error) => { clearTimeout(timer); resolve(error.code); });
});
const lookup = (name) => dns.lookup(name).then(() => 'resolved', (error) => error.code);
`;

describe.skipIf(!haveDocker)('runtime swarm on a single-node swarm', () => {
  let createdSwarm = false;
  let mesh = '';
  let file = '';
  let outside: Server | undefined;
  let outsidePort = 0;
  let stopped = false;
  const cli = (...args: string[]) => runCli([...args, '--config', file], { timeoutMs: 180_000 });

  beforeAll(async () => {
    const state = (await docker('info', '--format', '{{.Swarm.LocalNodeState}}')).trim();
    if (state === 'inactive') {
      // Loopback only: the single node needs no address others reach.
      await docker('swarm', 'init', '--advertise-addr', '127.0.0.1', '--listen-addr', '127.0.0.1:2377');
      createdSwarm = true;
    }
    await exec('bash', ['scripts/build-host-image.sh'], { cwd: REPO_ROOT, timeout: 240_000 });
    const dir = await mkdtemp(path.join(tmpdir(), 'ol-swarm-'));
    mesh = `swarm-${Math.random().toString(36).slice(2, 8)}`;
    const port = await freePort();
    let egressPort = await freePort();
    while (egressPort === port) egressPort = await freePort();
    await writeFile(
      path.join(dir, 'llm.yaml'),
      `models: [scripted]\nrules:\n  - match: { last_message: hello }\n    reply: { text: "${REPLY}" }\n`,
    );
    file = path.join(dir, 'mesh.yaml');
    await writeFile(
      file,
      `mesh: { name: ${mesh}, port: ${port}, egress_port: ${egressPort}, data_dir: data }
runtime:
  kind: swarm
  image: ${AGENT_IMAGE}
  host_image: openlegion-host:latest
  resources: { memory: 256m, cpus: 0.5, pids: 128 }
llm:
  default_model: demo/scripted
  providers:
    demo: { kind: scripted, script: llm.yaml }
agents:
  alpha: { role: e2e agent alpha, soul: Terse. }
  beta: { role: e2e agent beta, soul: Terse. }
`,
    );
    // A service of this machine on every address: an agent must not reach it.
    outside = createServer((socket) => socket.end('outside'));
    await new Promise<void>((resolve) => outside?.listen(0, '0.0.0.0', resolve));
    const address = outside.address();
    outsidePort = typeof address === 'object' && address ? address.port : 0;
    const start = await cli('start');
    expect(start.code, start.stdout + start.stderr).toBe(0);
    expect(start.stdout).toContain(`mesh ${mesh} ready: 2 agents`);
  }, 300_000);

  afterAll(async () => {
    if (mesh && !stopped) await cli('stop');
    outside?.close();
    if (mesh) {
      const left = await swarmLeftovers(mesh);
      if (left.services.length) await docker('service', 'rm', ...left.services);
      if (left.containers.length) await docker('rm', '-f', ...left.containers);
      if (left.secrets.length) await docker('secret', 'rm', ...left.secrets).catch(() => '');
      if (left.networks.length) await docker('network', 'rm', ...left.networks).catch(() => '');
      const volumes = await lines('volume', 'ls', '-q', '--filter', `label=openlegion.mesh=${mesh}`);
      if (volumes.length) await docker('volume', 'rm', '-f', ...volumes).catch(() => '');
    }
    if (createdSwarm) {
      await docker('swarm', 'leave', '--force');
      // `swarm leave` keeps the bridge it made for overlay traffic.
      await docker('network', 'rm', 'docker_gwbridge').catch(() => '');
    }
  }, 120_000);

  it('runs each agent as one hardened service whose credentials are a secret, never env or labels', async () => {
    const status = JSON.parse((await cli('status', '--json')).stdout) as { runtime: string };
    expect(status.runtime).toBe('swarm');
    const [service] = JSON.parse(await docker('service', 'inspect', `openlegion-${mesh}-alpha`)) as Array<{
      Spec: {
        Labels: Record<string, string>;
        Mode: unknown;
        TaskTemplate: {
          ContainerSpec: {
            User: string;
            ReadOnly: boolean;
            CapabilityDrop: string[];
            Env: string[];
            Init: boolean;
          };
          Resources: { Limits: { MemoryBytes: number; Pids: number } };
        };
      };
    }>;
    const container = service?.Spec.TaskTemplate.ContainerSpec;
    expect(service?.Spec.Mode).toEqual({ Replicated: { Replicas: 1 } });
    expect(container).toMatchObject({ User: '1000', ReadOnly: true, CapabilityDrop: ['ALL'], Init: true });
    expect(service?.Spec.TaskTemplate.Resources.Limits).toMatchObject({
      MemoryBytes: 256 * 1024 ** 2,
      Pids: 128,
    });
    const visible = JSON.stringify([container?.Env, service?.Spec.Labels]);
    expect(visible).not.toMatch(/MESH_TOKEN|_PROXY=http:\/\/alpha:/);
    expect(
      await lines('secret', 'ls', '--filter', `label=openlegion.mesh=${mesh}`, '--format', '{{.Name}}'),
    ).toEqual(expect.arrayContaining([`openlegion-${mesh}-alpha-env`, `openlegion-${mesh}-beta-env`]));
  });

  it('answers a send through the host container over the overlay', async () => {
    for (const agent of ['alpha', 'beta']) {
      const sent = await cli('send', agent, 'hello');
      expect(sent.code, sent.stderr).toBe(0);
      expect(sent.stdout).toBe(`${REPLY}\n`);
    }
  });

  it('locks a task in: the host only, no other agent, nothing else of this machine, egress only through the proxy', async () => {
    const alpha = await taskContainer(`openlegion-${mesh}-alpha`);
    const beta = await taskContainer(`openlegion-${mesh}-beta`);
    if (!alpha || !beta) throw new Error('no task containers');
    const betaAddress = (
      await docker(
        'inspect',
        beta,
        '--format',
        `{{(index .NetworkSettings.Networks "openlegion-${mesh}-beta-net").IPAddress}}`,
      )
    ).trim();
    const gateway = (
      await docker('network', 'inspect', 'bridge', '--format', '{{(index .IPAM.Config 0).Gateway}}')
    ).trim();
    const result = await nodeIn(
      alpha,
      `${PROBE}
(async () => {
  const env = Object.fromEntries(require('node:fs').readFileSync('/run/secrets/openlegion-env', 'utf8').trim().split('\\n').map((line) => { const at = line.indexOf('='); return [line.slice(0, at), line.slice(at + 2, -1)]; }));
  const proxy = new URL(env.HTTP_PROXY);
  const meshUrl = new URL(process.env.MESH_URL);
  const refused = await new Promise((resolve) => {
    const socket = net.connect({ host: proxy.hostname, port: Number(proxy.port) }, () => {
      const auth = Buffer.from(decodeURIComponent(proxy.username) + ':' + decodeURIComponent(proxy.password)).toString('base64');
      socket.write('GET http://not-allowed.example/ HTTP/1.1\\r\\nHost: not-allowed.example\\r\\nProxy-Authorization: Basic ' + auth + '\\r\\n\\r\\n');
    });
    socket.once('data', (data) => { socket.destroy(); resolve(String(data).split('\\r\\n')[0]); });
    socket.once('error', (error) => resolve(error.code));
  });
  console.log(JSON.stringify({
    host: await probe(meshUrl.hostname, Number(meshUrl.port)),
    betaByName: await lookup('openlegion-${mesh}-beta'),
    betaByAddress: await probe('${betaAddress}', 8400),
    machine: await probe('${gateway}', ${outsidePort}),
    proxyRefusal: refused,
    user: String(process.getuid()),
  }));
})();`,
    );
    expect(result).toEqual({
      host: 'connected',
      // No record: the internal overlay's resolver knows only its own members (and cannot ask outside).
      betaByName: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN)$/),
      betaByAddress: expect.stringMatching(/^(timeout|EHOSTUNREACH|ENETUNREACH|ECONNREFUSED)$/),
      machine: expect.stringMatching(/^(timeout|EHOSTUNREACH|ENETUNREACH)$/),
      proxyRefusal: expect.stringMatching(/^HTTP\/1\.1 403/),
      user: '1000',
    });
    // Beta's address is not even on alpha's network: no route, so no refusal from beta either.
    expect(result.betaByAddress).not.toBe('connected');
  });

  it('replaces a killed task and the agent answers again', async () => {
    const service = `openlegion-${mesh}-alpha`;
    const before = await taskContainer(service);
    if (!before) throw new Error('no alpha task');
    await docker('kill', before);
    await waitUntil(
      async () => {
        const now = await taskContainer(service);
        return now !== undefined && now !== before;
      },
      'a new alpha task',
      60_000,
    );
    await waitUntil(
      async () => {
        const sent = await cli('send', 'alpha', 'hello');
        return sent.code === 0 && sent.stdout === `${REPLY}\n`;
      },
      'the replaced alpha to answer',
      60_000,
    );
  }, 150_000);

  it('stop leaves no service, secret, network or container; the agents volumes stay until removed', async () => {
    const stop = await cli('stop');
    stopped = true;
    expect(stop.code, stop.stdout + stop.stderr).toBe(0);
    await waitUntil(
      async () => Object.values(await swarmLeftovers(mesh)).every((names) => names.length === 0),
      'the mesh to be gone from the engine',
      30_000,
    );
    const volumes = await lines('volume', 'ls', '-q', '--filter', `label=openlegion.mesh=${mesh}`);
    expect(volumes.sort()).toEqual([`openlegion-${mesh}-alpha-data`, `openlegion-${mesh}-beta-data`]);
    await docker('volume', 'rm', ...volumes);
  }, 90_000);
});
