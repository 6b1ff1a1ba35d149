import { describe, expect, it } from 'vitest';
import { meshConfigSchema } from './mesh-config.js';

const base = { llm: { providers: { openai: {} } }, agents: { lead: {} } };

const problems = (input: unknown) =>
  meshConfigSchema
    .safeParse(input)
    .error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) ?? [];

describe('mesh.yaml templates (fleet spawn)', () => {
  it("takes an agent's fields under templates.NAME, defaults applied, and none by default", () => {
    expect(meshConfigSchema.parse(base).templates).toEqual({});
    const config = meshConfigSchema.parse({
      ...base,
      agents: { lead: { permissions: { spawn: ['research*'] } } },
      templates: { researcher: { role: 'Finds one fact', tools: 'minimal' } },
    });
    expect(config.templates.researcher).toMatchObject({
      role: 'Finds one fact',
      tools: 'minimal',
      model: 'default',
    });
    expect(config.agents.lead?.permissions.spawn).toEqual(['research*']);
    expect(meshConfigSchema.parse(base).agents.lead?.permissions.spawn).toEqual([]);
  });

  it('checks a template like an agent: its model names a configured provider', () => {
    expect(problems({ ...base, templates: { t: { model: 'nowhere/model' } } })).toEqual([
      'templates.t.model: provider "nowhere" is not configured under llm.providers (have: openai)',
    ]);
    expect(problems({ ...base, templates: { t: { permissions: { message: ['ghost'] } } } })).toEqual([
      'templates.t.permissions.message.0: no agent "ghost" (agents: lead)',
    ]);
  });

  it('refuses a template name too long for TEMPLATE-xxxx to be an agent name, and cron in a template', () => {
    // The message the operator reads (`config validate`) is in host/src/config/temporary-agents.test.ts.
    expect(problems({ ...base, templates: { ['a'.repeat(35)]: {} } })).toEqual([
      `templates.${'a'.repeat(35)}: Invalid key in record`,
    ]);
    expect(problems({ ...base, templates: { t: { cron: [{ schedule: 'every 1h' }] } } })).toEqual([
      'templates.t.cron: a template cannot have cron entries: its agents are temporary',
    ]);
  });

  it('lets a cron entry spawn an existing template, not a missing one, and not as a heartbeat', () => {
    const cron = (entry: object) => ({
      ...base,
      agents: { lead: { cron: [{ schedule: 'every 1h', message: 'digest', ...entry }] } },
      templates: { digest: {} },
    });
    expect(meshConfigSchema.parse(cron({ spawn: 'digest' })).agents.lead?.cron[0]?.spawn).toBe('digest');
    expect(problems(cron({ spawn: 'nope' }))).toEqual([
      'agents.lead.cron.0.spawn: no template "nope" under templates (have: digest)',
    ]);
    expect(problems(cron({ spawn: 'digest', heartbeat: true }))).toEqual([
      'agents.lead.cron.0.heartbeat: a spawn entry cannot be a heartbeat',
    ]);
  });

  it("takes a template's squad, refuses a bad squad name, and refuses squad on an agent of agents", () => {
    const config = meshConfigSchema.parse({ ...base, templates: { researcher: { squad: 'research' } } });
    expect(config.templates.researcher?.squad).toBe('research');
    expect(meshConfigSchema.parse({ ...base, templates: { t: {} } }).templates.t?.squad).toBeUndefined();
    expect(problems({ ...base, templates: { t: { squad: 'no spaces' } } })).toEqual([
      'templates.t.squad: use a squad name: letters, digits, ".", "_" and "-", starting with a letter or digit (max 64)',
    ]);
    expect(problems({ ...base, agents: { lead: { squad: 'research' } } })).toEqual([
      'agents.lead: Unrecognized key: "squad"',
    ]);
  });
});
