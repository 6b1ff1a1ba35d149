import { describe, expect, it } from 'vitest';
import { capture } from '../test/captured-output.js';
import { COMMAND_EXAMPLES, commandPath, leafCommands } from './command-examples.js';
import { buildProgram, runCli } from './program.js';

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

describe('every command', () => {
  const program = buildProgram(capture(), () => {});

  it.each(leafCommands(program).map(commandPath))('%s has --help with an example', (path) => {
    expect(COMMAND_EXAMPLES[path], `add an example for "${path}" to COMMAND_EXAMPLES`).toMatch(
      /^openlegion /,
    );
    const command = leafCommands(program).find((candidate) => commandPath(candidate) === path);
    expect(command?.helpInformation().length).toBeGreaterThan(0);
  });

  it('prints the example in the help text', async () => {
    const output = capture();
    await runCli(argv('cron', 'list', '--help'), output);
    expect(output.stdout()).toContain('Example:\n  openlegion cron list');
  });
});
