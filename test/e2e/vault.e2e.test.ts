import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';

const KEY = 'sk-vault-e2e-7c1f0a9b3d5e';

describe('the vault, from the CLI to the provider', () => {
  let llm: FakeLlm;
  let mesh: E2eMesh;
  const cli = (args: string[], input?: string, env: NodeJS.ProcessEnv = {}) =>
    runCli([...args, '--config', mesh.file], { ...(input === undefined ? {} : { input }), env });

  beforeAll(async () => {
    llm = await startFakeLlm({ script: { default: { text: 'vault ok' } } });
    mesh = await writeMesh({
      prefix: 'e2e-vault',
      providerUrl: llm.url,
      runtime: 'process',
      agents: ['alpha'],
      apiKey: 'vault:UPSTREAM_KEY',
    });
  });
  afterAll(async () => {
    await cli(['stop']);
    await llm.close();
  });

  it('takes a value on stdin only, lists names never values, and the host hands the key to the provider alone', async () => {
    const onArgv = await cli(['vault', 'set', 'UPSTREAM_KEY', KEY]);
    expect(onArgv.code).toBe(1);
    expect(onArgv.stderr).toContain('not as an argument');
    expect((await cli(['vault', 'set', 'UPSTREAM_KEY'], `${KEY}\n`)).stdout).toContain(
      'UPSTREAM_KEY: stored in',
    );
    const listed = await cli(['vault', 'list']);
    expect(listed.stdout).toMatch(/^UPSTREAM_KEY {2}set \d{4}-/);
    expect(listed.stdout).not.toContain(KEY);
    const imported = await cli(['vault', 'import-env', 'EXTRA_TOKEN', 'MISSING_ONE'], undefined, {
      EXTRA_TOKEN: 'x',
    });
    expect(imported.stderr).toContain('not set in this environment: MISSING_ONE');
    expect((await cli(['vault', 'import-env', 'EXTRA_TOKEN'], undefined, { EXTRA_TOKEN: 'x' })).code).toBe(0);
    expect((await cli(['vault', 'rm', 'EXTRA_TOKEN'])).stdout).toBe('EXTRA_TOKEN: removed\n');

    const vaultFile = await readFile(path.join(mesh.dataDir, 'vault'), 'utf8');
    expect(vaultFile).not.toContain(KEY);
    expect((await stat(mesh.dataDir)).mode & 0o777).toBe(0o700);

    const started = await cli(['start', '--detach']);
    expect(started.code, started.stderr).toBe(0);
    const sent = await cli(['send', 'alpha', 'hello']);
    expect(sent.stdout).toBe('vault ok\n');
    expect(llm.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
    for (const file of ['mesh.db', 'vault', 'vault.key', 'host.log'])
      expect((await stat(path.join(mesh.dataDir, file))).mode & 0o777, file).toBe(0o600);
    expect(await readFile(path.join(mesh.dataDir, 'host.log'), 'utf8')).not.toContain(KEY);
  });

  it('refuses a wrong vault key with a clear error and never reads the vault as garbage', async () => {
    const wrong = await cli(['vault', 'list'], undefined, { OPENLEGION_VAULT_KEY: 'not the key' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('the vault key does not open');
    expect(wrong.stderr).not.toContain(KEY);
  });
});
