import { OpenLegionError } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { agentSelf } from '../fleet/agent-self.js';
import { allowedModels } from '../llm/model-access.js';
import { type ConfigProblem, formatConfigProblem, parseMeshConfig } from './index.js';

function problemsOf(text: string): string[] {
  try {
    parseMeshConfig(text, 'mesh.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(OpenLegionError);
    return ((error as OpenLegionError).details as { problems: ConfigProblem[] }).problems.map(
      formatConfigProblem,
    );
  }
  throw new Error('expected the config to be rejected');
}

describe('config validate: agents.NAME.memory', () => {
  it('prints each memory problem with its line, column and field', () => {
    const text = `mesh: { name: demo }
llm:
  providers:
    openai: { api_key: vault:OPENAI_API_KEY }
agents:
  a:
    memory:
      embedder: ada-002
      recall_chars: 2.5
      fast_tier: { rerank: yes please }
  b:
    memory: { recal_chars: 100 }
`;
    expect(problemsOf(text)).toEqual([
      'mesh.yaml:8:17 agents.a.memory.embedder: use local, a tier (fast, default, complex) or provider/model (e.g. openai/text-embedding-3-small)',
      'mesh.yaml:9:21 agents.a.memory.recall_chars: Invalid input: expected int, received number',
      'mesh.yaml:10:28 agents.a.memory.fast_tier.rerank: Invalid input: expected boolean, received string',
      'mesh.yaml:12:15 agents.b.memory.recal_chars: unknown field "recal_chars"',
    ]);
  });

  it('names an embedder whose provider is not configured', () => {
    const text = `mesh: { name: demo }
llm:
  providers:
    openai: { api_key: vault:OPENAI_API_KEY }
agents:
  a:
    memory: { embedder: cohere/embed-v4 }
`;
    expect(problemsOf(text)).toEqual([
      'mesh.yaml:7:25 agents.a.memory.embedder: provider "cohere" is not configured under llm.providers (have: openai)',
    ]);
  });

  it('tells the agent its resolved embedder in GET /mesh/self and lets it call that model', () => {
    const config = parseMeshConfig(
      `mesh: { name: demo }
llm:
  providers:
    openai: { api_key: vault:OPENAI_API_KEY }
agents:
  a: { memory: { embedder: openai/text-embedding-3-large, recall_chars: 0 } }
  b: {}
`,
      'mesh.yaml',
    );
    const context = {
      config,
      resolvePath: (relative: string) => relative,
      secrets: { lookup: () => undefined, howToSet: () => 'nowhere' },
    };
    expect(agentSelf(context, 'a').memory).toEqual({
      embedder: 'openai/text-embedding-3-large',
      recall_chars: 0,
      shared_scopes: [],
      fast_tier: { extract: true, dedup: true, admission: false, rerank: false },
    });
    expect(agentSelf(context, 'b').memory.embedder).toBe('local');
    expect(allowedModels(config, 'a').has('openai/text-embedding-3-large')).toBe(true);
    expect(allowedModels(config, 'b').has('openai/text-embedding-3-large')).toBe(false);
  });
});
