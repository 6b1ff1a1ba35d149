import { describe, expect, it } from 'vitest';
import { assemblePrompt } from './prompt-sections.js';
import { buildSystemPrompt, type SystemPromptInput } from './system-prompt.js';

const input: SystemPromptInput = {
  self: { agent: 'ada', mesh: 'lab', role: 'researcher', soul: 'Curious.' },
  mode: 'full',
  files: [
    { name: 'USER.md', source: 'workspace', text: 'Prefers metric units.', chars: 21, truncated: false },
    { name: 'AGENTS.md', source: 'operator', text: 'Cite sources.', chars: 13, truncated: false },
  ],
  toolNames: ['web_fetch'],
  kind: 'chat',
  date: '2026-03-04',
};

describe('buildSystemPrompt', () => {
  it('orders sections by priority: context, identity, security, formatting, language, tools, memory, custom', () => {
    const prompt = buildSystemPrompt(input);
    const order = [
      'Today is',
      'You are ada',
      '<untrusted>',
      'Be concise',
      'language the user',
      'Tools you can call',
      'Prefers metric',
      'Cite sources',
    ];
    const positions = order.map((marker) => prompt.indexOf(marker));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('keeps only context, identity, security and language in minimal mode', () => {
    const prompt = buildSystemPrompt({ ...input, mode: 'minimal' });
    expect([
      prompt.includes('Curious.'),
      prompt.includes('Tools you can call'),
      prompt.includes('Cite sources'),
      prompt.includes('language'),
    ]).toEqual([true, false, false, true]);
  });

  it('is one identity line in mode none', () => {
    expect(buildSystemPrompt({ ...input, mode: 'none' })).toBe(
      'You are ada, an agent in the lab mesh. Role: researcher.',
    );
  });

  it('adds the reasoning section only when asked', () => {
    expect(buildSystemPrompt(input)).not.toContain('step by step');
    expect(buildSystemPrompt({ ...input, think: true, reasoning: true })).toContain('Show your reasoning');
  });

  it('tells a task to keep going and a heartbeat how to stay silent', () => {
    expect(buildSystemPrompt({ ...input, kind: 'task' })).toContain('keep going until it is done');
    expect(buildSystemPrompt({ ...input, kind: 'heartbeat' })).toContain('answer __SILENT__ when nothing');
  });
});

describe('assemblePrompt', () => {
  it('sorts by priority whatever the input order and drops empty sections', () => {
    expect(
      assemblePrompt(
        [
          { name: 'custom', text: 'C' },
          { name: 'skills', text: '  ' },
          { name: 'context', text: 'A' },
          { name: 'memory', text: 'B' },
        ],
        'full',
      ),
    ).toBe('A\n\nB\n\nC');
  });
});
