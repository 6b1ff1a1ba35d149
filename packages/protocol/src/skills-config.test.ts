import { describe, expect, it } from 'vitest';
import { agentSelfSchema } from './agent-api.js';
import { meshConfigSchema } from './mesh-config.js';

const llm = { providers: { openai: {} } };

describe('agents.NAME.skills and agents.NAME.tool_loading', () => {
  it('defaults to no skill disabled, a 2,000-character prompt budget and tools loaded on demand', () => {
    const config = meshConfigSchema.parse({ llm, agents: { a: {} } });
    expect([config.agents.a?.skills, config.agents.a?.tool_loading]).toEqual([
      { disabled: [], prompt_chars: 2_000 },
      'on_demand',
    ]);
  });

  it('refuses an unknown field, an oversize budget and an unknown loading mode, naming each', () => {
    const result = meshConfigSchema.safeParse({
      llm,
      agents: { a: { skills: { disable: ['x'], prompt_chars: 50_000 }, tool_loading: 'lazy' } },
    });
    expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      [
        'agents.a.skills.prompt_chars',
        'at most 20000 characters: the list shares the prompt with the conversation',
      ],
      ['agents.a.skills', 'Unrecognized key: "disable"'],
      ['agents.a.tool_loading', 'Invalid option: expected one of "on_demand"|"all"'],
    ]);
  });

  it('reads /mesh/self from an older host without them as the defaults', () => {
    const self = agentSelfSchema.parse({ agent: 'a', mesh: 'm', role: '', model: 'x', soul: '' });
    expect([self.skills, self.tool_loading]).toEqual([{ disabled: [], prompt_chars: 2_000 }, 'on_demand']);
  });
});
