import { describe, expect, it } from 'vitest';
import type { CliOutput } from './cli-output.js';
import { runCli } from './program.js';

function capture(): CliOutput & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
    stdout: () => out,
    stderr: () => err,
  };
}

const argv = (...args: string[]) => ['node', 'openlegion', ...args];

describe('openlegion CLI', () => {
  it('prints the JSON Schema of mesh.yaml', async () => {
    const output = capture();
    expect(await runCli(argv('config', 'schema'), output)).toBe(0);
    const schema = JSON.parse(output.stdout()) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toContain('agents');
  });

  it('exits non-zero on an unknown command and says so', async () => {
    const output = capture();
    expect(await runCli(argv('launch'), output)).not.toBe(0);
    expect(output.stderr()).toContain("unknown command 'launch'");
  });

  it('refuses an unknown runtime kind', async () => {
    const output = capture();
    expect(await runCli(argv('start', '--runtime', 'vm'), output)).not.toBe(0);
    expect(output.stderr()).toContain('docker, process');
  });
});
