import { describe, expect, it } from 'vitest';
import { countWildcards, globPatternSchema, patternProblem, topicPatternSchema } from './pattern-bounds.js';

describe('pattern bounds', () => {
  it('counts * and ? characters of a glob, and *, ** and > parts of a topic pattern', () => {
    expect(countWildcards('a*b?c**', 'glob')).toBe(4);
    expect(countWildcards('a.*.**.>.x*', 'topic')).toBe(3);
  });

  it('accepts patterns at the bounds and names the bound a pattern breaks', () => {
    expect(patternProblem(`${'*'.repeat(16)}${'a'.repeat(240)}`, 'glob')).toBeUndefined();
    expect(patternProblem('a'.repeat(257), 'glob')).toBe(
      'a pattern is at most 256 characters (this one has 257); use a shorter one',
    );
    expect(patternProblem('?'.repeat(17), 'glob')).toBe(
      'a pattern has at most 16 wildcards (* or ?); this one has 17: use fewer',
    );
    expect(patternProblem(`${'**.'.repeat(17)}x`, 'topic')).toBe(
      'a pattern has at most 16 wildcards (*, ** or > parts); this one has 17: use fewer',
    );
    expect(patternProblem('', 'topic')).toBe('a pattern is not empty');
  });

  it('gives the problem as the schema issue', () => {
    expect(globPatternSchema.safeParse('research/*').success).toBe(true);
    expect(topicPatternSchema.safeParse('*.'.repeat(17)).error?.issues[0]?.message).toBe(
      'a pattern has at most 16 wildcards (*, ** or > parts); this one has 17: use fewer',
    );
  });
});
