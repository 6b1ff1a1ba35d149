import { type AgentConfig, OpenLegionError } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { parseMeshConfig } from './load-mesh-config.js';
import { addTemporaryAgent, removeTemporaryAgent } from './temporary-agents.js';

const YAML = `llm: { providers: { openai: {} } }
agents: { lead: { permissions: { spawn: ["*"] } } }
templates: { researcher: { role: Finds one fact } }
`;

describe('temporary agents in a frozen config', () => {
  it("join and leave config.agents frozen, while mesh.yaml's own agents cannot be replaced or removed", () => {
    const config = parseMeshConfig(YAML);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.templates.researcher)).toBe(true);
    addTemporaryAgent(config, 'researcher-ab12', config.templates.researcher as AgentConfig);
    expect(config.agents['researcher-ab12']?.role).toBe('Finds one fact');
    expect(Object.isFrozen(config.agents['researcher-ab12'])).toBe(true);
    expect(Object.keys(config.agents)).toEqual(['lead', 'researcher-ab12']);
    expect(() => addTemporaryAgent(config, 'lead', config.templates.researcher as AgentConfig)).toThrow(
      OpenLegionError,
    );
    removeTemporaryAgent(config, 'researcher-ab12');
    removeTemporaryAgent(config, 'lead');
    expect(Object.keys(config.agents)).toEqual(['lead']);
    expect(() => {
      (config.agents as Record<string, unknown>).lead = {};
    }).toThrow(TypeError);
  });

  it('names a template too long to give TEMPLATE-xxxx agent names, at its line', () => {
    expect(() =>
      parseMeshConfig(
        `${YAML}  ${'a'.repeat(35)}: {}\n`.replace(
          'templates: { researcher: { role: Finds one fact } }\n',
          'templates:\n',
        ),
      ),
    ).toThrow(
      `mesh.yaml:4:3 templates.${'a'.repeat(35)}: use lower-case letters, digits and "-", starting with a letter (max 34)`,
    );
  });
});
