import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OpenLegionError } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { type ConfigProblem, formatConfigProblem, loadMeshConfig, parseMeshConfig } from './index.js';

const valid = `mesh: { name: demo }
llm:
  default_model: openai/gpt-4.1-mini
  providers:
    openai: { api_key: vault:OPENAI_API_KEY }
agents:
  a: { role: helper }
  b: {}
`;

function problemsOf(text: string): ConfigProblem[] {
  try {
    parseMeshConfig(text, 'mesh.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(OpenLegionError);
    const details = (error as OpenLegionError).details as { problems: ConfigProblem[] };
    return details.problems;
  }
  throw new Error('expected the config to be rejected');
}

describe('parseMeshConfig', () => {
  it('applies defaults to a minimal valid file', () => {
    const config = parseMeshConfig(valid);
    expect(config.mesh).toEqual({ name: 'demo', host: '127.0.0.1', port: 8420, data_dir: '.openlegion' });
    expect(config.runtime.kind).toBe('docker');
    expect(config.agents.b?.model).toBe('default');
  });

  it('reports every problem with its line, column and field', () => {
    const text = `mesh: { name: demo }
llm:
  providers:
    openai: { api_key: sk-literal-key }
agents:
  a:
    model: nonsense
    colour: blue
  B: {}
`;
    const lines = problemsOf(text).map(formatConfigProblem);
    expect(lines).toEqual([
      expect.stringMatching(/^mesh\.yaml:4:24 llm\.providers\.openai\.api_key: use a reference like vault:/),
      expect.stringMatching(/^mesh\.yaml:7:12 agents\.a\.model: use a tier/),
      'mesh.yaml:8:5 agents.a.colour: unknown field "colour"',
      expect.stringMatching(/^mesh\.yaml:9:3 agents\.B: use lower-case letters/),
    ]);
  });

  it('defaults the recall budget to 2,000 characters, takes 0 as off, and names a bad one', () => {
    expect(parseMeshConfig(valid).agents.a?.memory.recall_chars).toBe(2_000);
    const off = valid.replace('a: { role: helper }', 'a: { role: helper, memory: { recall_chars: 0 } }');
    expect(parseMeshConfig(off).agents.a?.memory.recall_chars).toBe(0);
    const bad = valid.replace('b: {}', 'b: { memory: { recall_chars: -5 } }');
    expect(problemsOf(bad).map(formatConfigProblem)).toEqual([
      'mesh.yaml:8:32 agents.b.memory.recall_chars: use 0 (recall off) or a number of characters, e.g. 2000',
    ]);
    const huge = valid.replace('b: {}', 'b: { memory: { recall_chars: 900000 } }');
    expect(problemsOf(huge).map(formatConfigProblem)).toEqual([
      'mesh.yaml:8:32 agents.b.memory.recall_chars: at most 100000 characters: recall shares the prompt with the conversation',
    ]);
  });

  it('names the line of a search provider of unknown kind, without a key or without an instance', () => {
    const text = `${valid}search:
  providers:
    web: { kind: google }
    brave: {}
    searxng: {}
`;
    expect(problemsOf(text).map(formatConfigProblem)).toEqual([
      'mesh.yaml:11:18 search.providers.web.kind: unknown search provider kind "google": use searxng, brave, tavily',
      'mesh.yaml:12:5 search.providers.brave.api_key: a brave provider needs api_key: vault:BRAVE_API_KEY (then openlegion vault set BRAVE_API_KEY)',
      'mesh.yaml:13:5 search.providers.searxng.base_url: a searxng provider needs base_url: your instance, e.g. http://127.0.0.1:8888',
    ]);
  });

  it('rejects a model whose provider is not configured', () => {
    const text = `${valid}  c: { model: anthropic/claude-haiku-4-5 }\n`;
    const [problem] = problemsOf(text);
    expect(problem).toMatchObject({ line: 9, field: 'agents.c.model' });
    expect(problem?.message).toContain('provider "anthropic" is not configured');
  });

  it('reports cross-reference problems together with field problems', () => {
    const text =
      'llm: { providers: { openai: { api_key: literal } } }\nagents:\n  a: { model: anthropic/x, tools: all }\n';
    const fields = problemsOf(text).map((problem) => problem.field);
    expect(fields).toEqual(['llm.providers.openai.api_key', 'agents.a.model', 'agents.a.tools']);
  });

  it('rejects a mesh with no agents', () => {
    const [problem] = problemsOf('llm: { providers: { openai: {} } }\nagents: {}\n');
    expect(problem).toMatchObject({ line: 2, field: 'agents', message: 'define at least one agent' });
  });

  it('reports YAML syntax errors with their position', () => {
    const [problem] = problemsOf('mesh:\n  name: x\n\tport: 3\n');
    expect(formatConfigProblem(problem as ConfigProblem)).toBe(
      'mesh.yaml:3:1 Tabs are not allowed as indentation',
    );
  });
});

describe('loadMeshConfig', () => {
  it('resolves data_dir against the file folder', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ol-config-'));
    const file = path.join(dir, 'mesh.yaml');
    await writeFile(file, valid);
    const loaded = await loadMeshConfig(file);
    expect(loaded.dataDir).toBe(path.join(dir, '.openlegion'));
  });

  it('fails with CONFIG_NOT_FOUND naming a missing file', async () => {
    await expect(loadMeshConfig('/nonexistent/mesh.yaml')).rejects.toMatchObject({
      code: 'CONFIG_NOT_FOUND',
      message: expect.stringContaining('/nonexistent/mesh.yaml'),
    });
  });
});

describe('a loaded config', () => {
  it('is frozen all the way down, so no module can change what others read', () => {
    const config = parseMeshConfig(
      'llm: { providers: { openai: {} } }\nagents:\n  a: { permissions: { message: [b] } }\n  b: {}\n',
    );
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.agents.a?.permissions.message)).toBe(true);
    expect(() => {
      (config.mesh as { port: number }).port = 1;
    }).toThrow(TypeError);
  });
});

describe('cron schedules in mesh.yaml', () => {
  it('are checked when the file is loaded, each bad one located at its line', () => {
    const text = [
      'llm: { providers: { openai: {} } }',
      'agents:',
      '  a:',
      '    cron:',
      '      - { schedule: "every 15m" }',
      '      - { schedule: "*/0 * * * *" }',
      '  b:',
      '    cron: [{ schedule: "0 9 * * *", timezone: "Mars/Base" }]',
      '',
    ].join('\n');
    const error = (() => {
      try {
        parseMeshConfig(text, 'mesh.yaml');
      } catch (caught) {
        return caught as OpenLegionError;
      }
      throw new Error('expected a CONFIG_INVALID error');
    })();
    expect(error.message).toContain('mesh.yaml: 2 problems');
    expect(error.message).toContain(
      'mesh.yaml:6:21 agents.a.cron.1.schedule: "*/0 * * * *": Syntax error, illegal stepping: 0',
    );
    expect(error.message).toContain('agents.b.cron.0.schedule: "Mars/Base" is not a timezone');
  });
});
