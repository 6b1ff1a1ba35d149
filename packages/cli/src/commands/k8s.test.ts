import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { capture } from '../../test/captured-output.js';
import { runCli } from '../program.js';

const MESH_YAML = `mesh: { name: research }
llm:
  providers:
    openai: { api_key: env:OPENAI_API_KEY }
  tiers: { default: openai/gpt-4o-mini }
agents:
  researcher: {}
`;

const argv = (...args: string[]) => ['node', 'openlegion', ...args];

describe('openlegion k8s manifests', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const fleet = (yaml = MESH_YAML) => {
    const dir = mkdtempSync(join(tmpdir(), 'k8s-cli-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'mesh.yaml'), yaml);
    return dir;
  };

  it('writes the fleet and its token placeholders as two files for kubectl apply, and says what to fill in', async () => {
    const dir = fleet();
    const output = capture();
    const out = join(dir, 'k8s');
    expect(
      await runCli(
        argv('k8s', 'manifests', '-c', join(dir, 'mesh.yaml'), '--out', out, '-n', 'team-a'),
        output,
      ),
    ).toBe(0);
    const file = join(out, 'openlegion-research.yaml');
    const secrets = join(out, 'openlegion-research-secrets.yaml');
    expect(output.stdout()).toBe(
      `${file}: 14 objects in namespace team-a\n${secrets}: 1 objects in namespace team-a\n`,
    );
    expect(readFileSync(secrets, 'utf8')).toMatch(/^kind: Secret$/m);
    expect(readFileSync(file, 'utf8')).not.toMatch(/^kind: Secret$/m);
    expect(output.stderr()).toContain('warning: every agent-*-tokens Secret holds REPLACE_ME');
    // The host package's tests parse it as YAML and check it against the API schemas; here, its shape.
    const kinds = [...readFileSync(file, 'utf8').matchAll(/^kind: (\w+)$/gm)].map((match) => match[1]);
    expect(kinds).toHaveLength(14);
    expect(kinds[0]).toBe('Namespace');
    expect(kinds).toContain('StatefulSet');
  });

  it('refuses a bad namespace with the rule, exit 1', async () => {
    const dir = fleet();
    const output = capture();
    expect(
      await runCli(
        argv('k8s', 'manifests', '-c', join(dir, 'mesh.yaml'), '--out', dir, '-n', 'Team_A'),
        output,
      ),
    ).toBe(1);
    expect(output.stderr()).toContain('namespace "Team_A" is not a valid Kubernetes name');
  });

  it('refuses an unknown runtime field, naming it', async () => {
    const dir = fleet(`${MESH_YAML}runtime: { kind: docker, replicas: 2 }\n`);
    const output = capture();
    expect(await runCli(argv('k8s', 'manifests', '-c', join(dir, 'mesh.yaml'), '--out', dir), output)).toBe(
      1,
    );
    expect(output.stderr()).toContain('replicas');
  });
});
