import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseMeshConfig } from '@openlegion/host/config';
import { Vault } from '@openlegion/host/vault';
import { describe, expect, it } from 'vitest';
import type { CliOutput } from '../cli-output.js';
import { meshYaml } from '../init/mesh-template.js';
import { askWebAccess } from '../init/web-access.js';
import { runCli } from '../program.js';

function captured(): CliOutput & { text: () => string } {
  const chunks: string[] = [];
  return {
    out: (chunk) => chunks.push(chunk),
    err: (chunk) => chunks.push(chunk),
    text: () => chunks.join(''),
  };
}

describe('openlegion init', () => {
  it('writes a mesh.yaml that validates, and the demo script beside it, with no terminal', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'init-'));
    const file = path.join(dir, 'mesh.yaml');
    const output = captured();
    const code = await runCli(
      [
        'node',
        'openlegion',
        'init',
        '--file',
        file,
        '--name',
        'lab',
        '--agent',
        'researcher:Finds sources',
        '--agent',
        'writer:Writes',
        '--provider',
        'demo',
      ],
      output,
    );
    expect(code, output.text()).toBe(0);
    const config = parseMeshConfig(readFileSync(file, 'utf8'));
    expect(Object.keys(config.agents)).toEqual(['researcher', 'writer']);
    expect(config.agents.researcher?.role).toBe('Finds sources');
    expect(config.llm.default_model).toBe('demo/scripted');
    expect(existsSync(path.join(dir, 'demo-llm.yaml'))).toBe(true);
  });

  it("stores the provider key in the mesh's vault when this shell has it, and says how otherwise", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'init-'));
    const file = path.join(dir, 'mesh.yaml');
    const output = captured();
    process.env.ANTHROPIC_API_KEY = 'sk-ant-init-test-key';
    try {
      const args = ['node', 'openlegion', 'init', '--file', file, '--provider', 'anthropic'];
      expect(await runCli(args, output), output.text()).toBe(0);
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
    }
    expect(output.text()).toContain('ANTHROPIC_API_KEY: stored in the vault');
    expect(output.text()).not.toContain('sk-ant-init-test-key');
    const dataDir = path.join(dir, parseMeshConfig(readFileSync(file, 'utf8')).mesh.data_dir);
    expect(new Vault({ dataDir }).get('ANTHROPIC_API_KEY')).toBe('sk-ant-init-test-key');

    const without = captured();
    const other = path.join(dir, 'other.yaml');
    expect(
      await runCli(['node', 'openlegion', 'init', '--file', other, '--provider', 'openai'], without),
    ).toBe(0);
    expect(without.text()).toContain(
      "next: keep the key in the host's vault: openlegion vault set OPENAI_API_KEY",
    );
  });

  it('never overwrites an existing file without --force', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'init-')), 'mesh.yaml');
    expect(await runCli(['node', 'openlegion', 'init', '--file', file], captured())).toBe(0);
    const refused = captured();
    expect(await runCli(['node', 'openlegion', 'init', '--file', file, '--name', 'other'], refused)).toBe(1);
    expect(refused.text()).toContain('exists; nothing written');
    expect(readFileSync(file, 'utf8')).not.toContain('name: other');
    expect(
      await runCli(['node', 'openlegion', 'init', '--file', file, '--name', 'other', '--force'], captured()),
    ).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('name: other');
  });

  it('names a bad agent flag', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'init-')), 'mesh.yaml');
    const output = captured();
    expect(
      await runCli(['node', 'openlegion', 'init', '--file', file, '--agent', 'Bad Name:x'], output),
    ).toBe(1);
    expect(output.text()).toContain('--agent Bad Name:x: the name must be lower-case');
  });

  it.each(['openai', 'anthropic', 'ollama', 'demo'] as const)(
    'writes a valid config for the %s provider',
    (provider) => {
      const text = meshYaml({
        mesh: 'm',
        agents: [{ name: 'a', role: 'says "hi": often' }],
        provider,
        model: 'x',
      });
      expect(parseMeshConfig(text).llm.default_model).toBe(`${provider}/x`);
    },
  );
});

describe('openlegion init and the web', () => {
  const run = async (extra: string[]) => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'init-')), 'mesh.yaml');
    const output = captured();
    const args = ['node', 'openlegion', 'init', '--file', file, '--provider', 'demo', ...extra];
    return { code: await runCli(args, output), output: output.text(), file };
  };

  it("writes egress: ['@web'] for the agents --web names, and the commented line for the others", async () => {
    const { code, output, file } = await run([
      '--agent',
      'researcher:Finds sources',
      '--agent',
      'writer:Writes',
      '--web',
      'researcher',
    ]);
    expect(code, output).toBe(0);
    expect(output).toContain('2 agents, demo/scripted, web for researcher');
    const text = readFileSync(file, 'utf8');
    const config = parseMeshConfig(text);
    expect(config.agents.researcher?.permissions.egress).toEqual(['@web']);
    expect(config.agents.writer?.permissions.egress).toEqual([]);
    expect(text).toContain(
      '  researcher:\n    role: "Finds sources"\n    # soul: "Curious, terse."   # or a path to SOUL.md\n    # tools: full              # minimal | coding | messaging | full\n    # The web: any public host. Loopback, private and metadata addresses stay refused.\n    permissions: { egress: ["@web"] }\n',
    );
    expect(text).toContain(
      '  writer:\n    role: "Writes"\n    # soul: "Curious, terse."   # or a path to SOUL.md\n    # tools: full              # minimal | coding | messaging | full\n    # No web access. To allow any public host:\n    # permissions: { egress: ["@web"] }\n',
    );
  });

  it('gives no agent the web by default without a terminal, and every agent with --web all', async () => {
    const none = await run([]);
    expect(none.output).toContain('1 agent, demo/scripted, no web access (--web NAME to give it)');
    expect(parseMeshConfig(readFileSync(none.file, 'utf8')).agents.assistant?.permissions.egress).toEqual([]);
    const all = await run(['--agent', 'a:A', '--agent', 'b:B', '--web', 'all']);
    const config = parseMeshConfig(readFileSync(all.file, 'utf8'));
    expect([config.agents.a?.permissions.egress, config.agents.b?.permissions.egress]).toEqual([
      ['@web'],
      ['@web'],
    ]);
  });

  it('names a --web agent that is not among the agents', async () => {
    const { code, output } = await run(['--agent', 'researcher:R', '--web', 'writer']);
    expect(code).toBe(1);
    expect(output).toContain(
      '--web writer: no agent is named writer (agents: researcher); name agents with --agent, or use --web all',
    );
  });

  it('asks per agent in a terminal, no by default', async () => {
    const asked: string[] = [];
    const answers: Record<string, string> = { researcher: 'y', writer: '' };
    const agents = await askWebAccess(
      [
        { name: 'researcher', role: 'R' },
        { name: 'writer', role: 'W' },
      ],
      async (text, fallback) => {
        asked.push(`${text} (${fallback})`);
        const name = /^May (\S+)/.exec(text)?.[1] ?? '';
        return answers[name] || fallback;
      },
    );
    expect(asked).toEqual([
      'May researcher use the web (any public host; private and local addresses stay closed), y/n? (n)',
      'May writer use the web (any public host; private and local addresses stay closed), y/n? (n)',
    ]);
    expect(agents.map((agent) => [agent.name, agent.web])).toEqual([
      ['researcher', true],
      ['writer', false],
    ]);
  });
});

describe('the shipped mesh.yaml', () => {
  it("lets the researcher use the web ('@web') and search it, and keeps the writer off both", () => {
    const text = readFileSync(new URL('../../../../mesh.yaml', import.meta.url), 'utf8');
    const config = parseMeshConfig(text, 'mesh.yaml');
    expect(config.agents.researcher?.permissions.egress).toEqual(['@web']);
    expect(config.agents.researcher?.permissions.egress_ports).toEqual([80, 443]);
    expect(config.agents.researcher?.permissions.search).toBe(true);
    expect(config.agents.writer?.permissions.egress).toEqual([]);
    expect(config.agents.writer?.permissions.search).toBe(false);
  });
});
