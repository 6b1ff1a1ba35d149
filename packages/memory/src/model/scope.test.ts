import { describe, expect, it } from 'vitest';
import { allowedDecisions, parseCategoryName } from './category-rules.js';
import { defaultScopes, isScope, parseScope } from './scope.js';

describe('scopes', () => {
  it.each([
    'global',
    'agent:researcher',
    'project:site-2',
    'user:ana@example',
    'squad:alpha',
    'custom:notes',
  ])('accepts %s', (scope) => expect(isScope(scope)).toBe(true));

  it.each(['', 'team:x', 'agent:', 'global:x', 'agent:a b', `custom:${'x'.repeat(200)}`])(
    'refuses "%s"',
    (scope) => {
      expect(() => parseScope(scope)).toThrow(expect.objectContaining({ code: 'MEM_SCOPE_INVALID' }));
    },
  );

  it('gives an agent its own scope first, then global', () => {
    expect(defaultScopes('a')).toEqual(['agent:a', 'global']);
  });
});

describe('category rules', () => {
  it('lets append-only categories only create or skip', () => {
    expect(allowedDecisions('events')).toEqual(['create', 'skip']);
    expect(allowedDecisions('preferences')).toContain('merge');
  });

  it('accepts snake_case names and refuses others', () => {
    expect(parseCategoryName(' Travel_Plans ')).toBe('travel_plans');
    expect(() => parseCategoryName('no spaces')).toThrow(
      expect.objectContaining({ code: 'MEM_CATEGORY_INVALID' }),
    );
  });
});
