import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dockerAnswers, meshLeftovers, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';

const haveDocker = await dockerAnswers();
if (process.env.OPENLEGION_REQUIRE_DOCKER === '1' && !haveDocker) {
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');
}
const runtimes: Array<'docker' | 'process'> = haveDocker ? ['docker', 'process'] : ['process'];
const UNUSED_PROVIDER = 'http://127.0.0.1:9/v1';

/** Running, that is: not gone and not a zombie waiting to be reaped. */
function isAlive(pid: number): boolean {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return false;
  }
  return /^State:\s+(\S)/m.exec(status)?.[1] !== 'Z';
}

async function agentPids(mesh: E2eMesh): Promise<number[]> {
  const runDir = path.join(mesh.dataDir, 'run');
  const files = await readdir(runDir).catch(() => []);
  return Promise.all(
    files.map(
      async (file) => (JSON.parse(await readFile(path.join(runDir, file), 'utf8')) as { pid: number }).pid,
    ),
  );
}

describe.each(runtimes)('openlegion stop after the host crashed (%s runtime)', (runtime) => {
  const meshes: string[] = [];
  afterAll(async () => {
    if (haveDocker) await Promise.all(meshes.map(removeMesh));
  });

  it('removes the agents the killed host left running', async () => {
    const mesh = await writeMesh({
      prefix: `crash-${runtime.slice(0, 4)}`,
      providerUrl: UNUSED_PROVIDER,
      runtime,
    });
    meshes.push(mesh.name);
    const cli = (...args: string[]) => runCli([...args, '--config', mesh.file]);
    expect((await cli('start', '--detach')).code).toBe(0);
    const { pid } = JSON.parse((await cli('status', '--json')).stdout) as { pid: number };
    const pids = runtime === 'process' ? await agentPids(mesh) : [];
    process.kill(pid, 'SIGKILL');
    if (runtime === 'docker') expect((await meshLeftovers(mesh.name)).containers).toHaveLength(2);

    const stop = await cli('stop');
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain(
      `no host was running for mesh ${mesh.name}; removed what its last run left`,
    );
    if (runtime === 'docker') {
      expect(await meshLeftovers(mesh.name)).toEqual({ containers: [], networks: [] });
    } else {
      expect(pids).toHaveLength(2);
      expect(pids.filter(isAlive)).toEqual([]);
    }

    const again = await cli('stop');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`no host is running for mesh ${mesh.name}; nothing to stop`);
  });
});
