import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { dockerAnswers, meshLeftovers, removeMesh } from './support/docker-cli.js';
import { writeMesh } from './support/e2e-mesh.js';
import { REPO_ROOT } from './support/run-cli.js';

const haveDocker = await dockerAnswers();
if (process.env.OPENLEGION_REQUIRE_DOCKER === '1' && !haveDocker) {
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');
}
const runtime = haveDocker ? 'docker' : 'process';
const UNUSED_PROVIDER = 'http://127.0.0.1:9/v1';

/** `openlegion start` in the foreground, as in a terminal; resolves its output once `pattern` shows. */
function startForeground(config: string): {
  child: ChildProcess;
  output: () => string;
  until: (pattern: RegExp) => Promise<void>;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['packages/cli/bundle/bin.mjs', 'start', '--config', config], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of waiters) if (waiter.pattern.test(output)) waiter.resolve();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const until = (pattern: RegExp) => new Promise<void>((resolve) => waiters.push({ pattern, resolve }));
  return { child, output: () => output, until, exit };
}

describe('Ctrl-C on openlegion start', () => {
  const meshes: string[] = [];
  afterEach(async () => {
    if (haveDocker) await Promise.all(meshes.splice(0).map(removeMesh));
  });

  it('right after the ready line still stops every agent before exiting', async () => {
    const mesh = await writeMesh({
      prefix: 'sigready',
      providerUrl: UNUSED_PROVIDER,
      runtime,
      agents: ['alpha'],
    });
    const host = startForeground(mesh.file);
    await host.until(new RegExp(`mesh ${mesh.name} ready`));
    host.child.kill('SIGINT');
    expect(await host.exit).toBe(0);
    expect(host.output()).toContain(`mesh ${mesh.name} stopped`);
    if (haveDocker) expect(await meshLeftovers(mesh.name)).toEqual({ containers: [], networks: [] });
  });

  it('during start-up stops what was started and says so', async () => {
    const mesh = await writeMesh({
      prefix: 'sigstart',
      providerUrl: UNUSED_PROVIDER,
      runtime,
      agents: ['alpha', 'beta'],
    });
    const host = startForeground(mesh.file);
    await host.until(/beta starting/);
    host.child.kill('SIGINT');
    expect(await host.exit).not.toBe(0);
    expect(host.output()).toContain('interrupted during start; everything started was stopped');
    if (haveDocker) expect(await meshLeftovers(mesh.name)).toEqual({ containers: [], networks: [] });
  });
});
