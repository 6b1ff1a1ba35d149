import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docker, dockerAnswers, meshLeftovers, removeMesh } from './support/docker-cli.js';
import { freePort, writeMesh } from './support/e2e-mesh.js';
import { REPO_ROOT, runCli } from './support/run-cli.js';

const haveDocker = await dockerAnswers();
if (process.env.OPENLEGION_REQUIRE_DOCKER === '1' && !haveDocker) {
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');
}
/** No provider is called in these tests: start fails before any chat. */
const UNUSED_PROVIDER = 'http://127.0.0.1:9/v1';

async function hostAnswers(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1_000) });
    return true;
  } catch {
    return false;
  }
}

describe('openlegion start with bad input', () => {
  it('rejects an invalid mesh.yaml with every problem located, and starts nothing', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ol-bad-config-'));
    const file = path.join(dir, 'mesh.yaml');
    const port = await freePort();
    await writeFile(
      file,
      `mesh: { name: bad-config, port: ${port} }
llm:
  providers:
    openai: { api_key: sk-not-a-reference }
agents:
  alpha:
    model: anthropic/claude
    tools: everything
`,
    );
    const start = await runCli(['start', '--config', file]);
    expect(start.code).not.toBe(0);
    const lines = start.stderr.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^${file}:4:\\d+ llm\\.providers\\.openai\\.api_key: `)),
        expect.stringMatching(new RegExp(`^${file}:7:\\d+ agents\\.alpha\\.model: provider "anthropic"`)),
        expect.stringMatching(new RegExp(`^${file}:8:\\d+ agents\\.alpha\\.tools: `)),
      ]),
    );
    expect(start.stdout).not.toContain('starting mesh');
    expect(await hostAnswers(port)).toBe(false);
    if (haveDocker) expect(await meshLeftovers('bad-config')).toEqual({ containers: [], networks: [] });
  });

  it('config validate exits non-zero with the same located problems', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ol-bad-validate-'));
    const file = path.join(dir, 'mesh.yaml');
    await writeFile(file, 'llm: { providers: { openai: {} } }\nagents:\n  Alpha: {}\n');
    const validate = await runCli(['config', 'validate', file]);
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain(`${file}:3:3 agents.Alpha: use lower-case letters`);
    expect(validate.stderr).toContain('1 problem');
  });

  describe('with the port taken', () => {
    let blocker: Server;
    let port: number;

    beforeAll(async () => {
      port = await freePort();
      blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

    it('names the port and leaves nothing behind', async () => {
      const mesh = await writeMesh({
        prefix: 'port',
        providerUrl: UNUSED_PROVIDER,
        runtime: haveDocker ? 'docker' : 'process',
        port,
      });
      const start = await runCli(['start', '--config', mesh.file]);
      expect(start.code).not.toBe(0);
      expect(start.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      if (haveDocker) expect(await meshLeftovers(mesh.name)).toEqual({ containers: [], networks: [] });
    });
  });

  describe.runIf(haveDocker)('with an agent that never becomes ready', () => {
    const image = 'openlegion-e2e-never-ready:latest';

    beforeAll(async () => {
      // The real agent image, but its process never reports ready: it only logs and waits.
      const context = await mkdtemp(path.join(tmpdir(), 'ol-never-ready-'));
      await writeFile(
        path.join(context, 'Dockerfile'),
        'FROM openlegion-agent:latest\nCMD ["node", "-e", "console.log(\'warming up the flux capacitor\'); setInterval(() => {}, 1000)"]\n',
      );
      await docker('build', '-q', '-t', image, context);
    });
    afterAll(async () => {
      await docker('rmi', '-f', image).catch(() => '');
    });

    it('fails after the timeout naming the agent and its last log lines, and cleans up', async () => {
      const mesh = await writeMesh({
        prefix: 'never',
        providerUrl: UNUSED_PROVIDER,
        runtime: 'docker',
        image,
        readyTimeoutMs: 3_000,
        agents: ['sleepy'],
      });
      const began = Date.now();
      const start = await runCli(['start', '--config', mesh.file]);
      expect(start.code).not.toBe(0);
      expect(Date.now() - began).toBeGreaterThanOrEqual(3_000);
      expect(start.stderr).toContain('agent "sleepy" did not become ready within 3s');
      expect(start.stderr).toContain('warming up the flux capacitor');
      expect(start.stdout).toContain('✗ sleepy failed');
      expect(await meshLeftovers(mesh.name)).toEqual({ containers: [], networks: [] });
      expect(await hostAnswers(mesh.port)).toBe(false);
      await removeMesh(mesh.name); // the agent's data volume, which a real mesh keeps
    });
  });

  it('explains how to get Docker, or to use --runtime process, when no engine answers', async () => {
    const mesh = await writeMesh({ prefix: 'nodocker', providerUrl: UNUSED_PROVIDER, runtime: 'docker' });
    const start = await runCli(['start', '--config', mesh.file], {
      env: { DOCKER_HOST: `unix://${path.join(mesh.dir, 'no-docker.sock')}` },
    });
    expect(start.code).not.toBe(0);
    expect(start.stderr).toMatch(/Docker engine/i);
    expect(start.stderr).toContain('--runtime process');
    expect(await hostAnswers(mesh.port)).toBe(false);
  });

  it('ensure-docker.sh tells a non-root user what to do when no engine answers', () => {
    const asNobody =
      process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
    const [command = 'bash', ...args] = [...asNobody, 'bash', '-s'];
    // The script goes in on stdin, from /: the checkout may sit where that user cannot read.
    const result = spawnSync(command, args, {
      cwd: '/',
      input: readFileSync(path.join(REPO_ROOT, 'scripts/ensure-docker.sh')),
      env: { PATH: process.env.PATH, DOCKER_HOST: 'unix:///nonexistent/docker.sock' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('no Docker engine answers');
    expect(result.stderr).toContain('--runtime process');
  });
});
