import { AGENT_DIRECTIVES } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { parseDirectives } from './directives.js';

describe('parseDirectives', () => {
  it('reads several directives from the start and removes them from the message', () => {
    expect(parseDirectives('/quiet /coding /think fix the test')).toEqual({
      message: 'fix the test',
      mode: 'minimal',
      profile: 'coding',
      think: true,
      verbose: false,
      reasoning: false,
      compact: false,
      applied: ['/quiet', '/coding', '/think'],
    });
  });

  it('maps /silent to prompt mode none and reads /verbose, /reasoning and /compact', () => {
    expect(parseDirectives('/silent /verbose /reasoning /compact 2+2')).toMatchObject({
      message: '2+2',
      mode: 'none',
      verbose: true,
      reasoning: true,
      compact: true,
    });
  });

  it('stops at the first word that is not a directive', () => {
    expect(parseDirectives('/full cat /etc/hosts /quiet')).toMatchObject({
      message: 'cat /etc/hosts /quiet',
      mode: 'full',
      profile: 'full',
    });
  });

  it('leaves a message with an unknown directive untouched', () => {
    expect(parseDirectives('/elevated delete it')).toMatchObject({
      message: '/elevated delete it',
      applied: [],
    });
  });

  it('does not take a path-like word for a directive', () => {
    expect(parseDirectives('/quietly please')).toMatchObject({ message: '/quietly please', mode: 'full' });
  });

  it('reads /model with a tier, a provider/model or reset as its argument', () => {
    expect(parseDirectives('/model fast hi')).toMatchObject({
      message: 'hi',
      model: { action: 'set', model: 'fast' },
      applied: ['/model fast'],
    });
    expect(parseDirectives('/quiet /model openai/gpt-4.1 /think go')).toMatchObject({
      message: 'go',
      mode: 'minimal',
      think: true,
      model: { action: 'set', model: 'openai/gpt-4.1' },
    });
    expect(parseDirectives('/model reset')).toMatchObject({ message: '', model: { action: 'reset' } });
  });

  it('takes /model alone, or before a word that names no model, as asking which model it is', () => {
    expect(parseDirectives('/model')).toMatchObject({ message: '', model: { action: 'show' } });
    expect(parseDirectives('/model which one are you?')).toMatchObject({
      message: 'which one are you?',
      model: { action: 'show' },
      applied: ['/model'],
    });
  });
});

describe('AGENT_DIRECTIVES (what channels pass through)', () => {
  it('names exactly the directives the agent reads', () => {
    for (const name of AGENT_DIRECTIVES) {
      const text = name === 'model' ? '/model fast hello' : `/${name} hello`;
      const applied = parseDirectives(text).applied;
      expect(
        applied.some((directive) => directive.split(' ')[0] === `/${name}`),
        name,
      ).toBe(true);
    }
    expect(parseDirectives('/nonsense hello').applied).toEqual([]);
  });
});
