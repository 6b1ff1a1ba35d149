import { MAX_PATTERN_LENGTH, MAX_PATTERN_WILDCARDS, patternProblem } from '@openlegion/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, globMatcher, topicMatcher } from './pattern-matcher.js';

/** The regex globs the host used before (a backtracking reference: run only on tiny inputs). */
function regexGlob(pattern: string): (value: string) => boolean {
  const source = pattern
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
    .join('');
  const regex = new RegExp(`^(?:${source})$`, 's');
  return (value) => regex.test(value);
}

/** The regex topic patterns the host used before (reference, tiny inputs only). */
function regexTopic(pattern: string): (topic: string) => boolean {
  const parts = pattern.split('.').map((part) => {
    if (part === '**' || part === '>') return '.*';
    if (part === '*') return '[^.]+';
    return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  const regex = new RegExp(`^${parts.join('\\.')}$`);
  return (topic) => regex.test(topic);
}

/** Median milliseconds of `runs` calls of `work`. */
function medianMs(work: () => void, runs = 31): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)] ?? Number.POSITIVE_INFINITY;
}

describe('compileGlob', () => {
  it('matches * as any run (separators and nothing included), ? as one character, the rest literally', () => {
    const matches = compileGlob('research/*');
    expect(matches('research/')).toBe(true);
    expect(matches('research/a/b/c')).toBe(true);
    expect(matches('research')).toBe(false);
    expect(compileGlob('a?c')('abc')).toBe(true);
    expect(compileGlob('a?c')('ac')).toBe(false);
    expect(compileGlob('*.wikipedia.org')('en.wikipedia.org')).toBe(true);
    expect(compileGlob('*.wikipedia.org')('wikipedia.org.evil.com')).toBe(false);
    expect(compileGlob('a*b*c')('a-x-b-y-b-c')).toBe(true);
    expect(compileGlob('a*b*c')('a-x-b-y-b-c-')).toBe(false);
    expect(compileGlob('[a].+')('[a].+')).toBe(true);
    expect(compileGlob('Key')('key')).toBe(false);
    expect(compileGlob('')('')).toBe(true);
    expect(compileGlob('')('x')).toBe(false);
    expect(compileGlob('*')('')).toBe(true);
  });

  it('lets a key with a newline match * like any other character', () => {
    expect(compileGlob('a*b')('a\nb')).toBe(true);
    expect(compileGlob('a?b')('a\nb')).toBe(true);
  });
});

describe('globMatcher', () => {
  it('matches when any of its patterns does, and nothing for no patterns', () => {
    const matches = globMatcher(['tasks.*', 'plan']);
    expect(matches('tasks.1')).toBe(true);
    expect(matches('plan')).toBe(true);
    expect(matches('planned')).toBe(false);
    expect(globMatcher([])('')).toBe(false);
  });
});

describe('topicMatcher', () => {
  it('matches * as exactly one part and ** or > as one or more parts, never zero', () => {
    expect(topicMatcher('research.*')('research.done')).toBe(true);
    expect(topicMatcher('research.*')('research.deep.done')).toBe(false);
    expect(topicMatcher('research.*')('research')).toBe(false);
    for (const pattern of ['news.**', 'news.>']) {
      const matches = topicMatcher(pattern);
      expect(matches('news.a')).toBe(true);
      expect(matches('news.a.b.c')).toBe(true);
      expect(matches('news')).toBe(false);
      expect(matches('newsy.a')).toBe(false);
    }
    expect(topicMatcher('a.**.z')('a.b.c.z')).toBe(true);
    expect(topicMatcher('a.**.z')('a.z')).toBe(false);
    expect(topicMatcher('*.done')('x.done')).toBe(true);
    expect(topicMatcher('**')('anything.at.all')).toBe(true);
  });

  it('takes a * or > inside a part literally', () => {
    expect(topicMatcher('a*.b')('ax.b')).toBe(false);
    expect(topicMatcher('a*.b')('a*.b')).toBe(true);
    expect(topicMatcher('x.>y')('x.>y')).toBe(true);
    expect(topicMatcher('x.>y')('x.z')).toBe(false);
  });
});

describe('the pattern matcher against the regexes it replaces (tiny inputs)', () => {
  it('agrees with the regex glob on every pattern and value', () => {
    const pattern = fc.string({ unit: fc.constantFrom('a', 'b', '.', '/', '*', '?'), maxLength: 8 });
    const value = fc.string({ unit: fc.constantFrom('a', 'b', '.', '/', '\n'), maxLength: 10 });
    fc.assert(
      fc.property(pattern, value, (glob, key) => compileGlob(glob)(key) === regexGlob(glob)(key)),
      { numRuns: 5_000 },
    );
  });

  it('agrees with the regex topic pattern on every pattern and topic (empty parts included)', () => {
    const pattern = fc
      .array(fc.constantFrom('a', 'b', '*', '**', '>', 'a*', ''), { minLength: 1, maxLength: 5 })
      .map((parts) => parts.join('.'));
    const topic = fc
      .array(fc.constantFrom('a', 'b', 'ab', '*', ''), { minLength: 1, maxLength: 7 })
      .map((parts) => parts.join('.'));
    fc.assert(
      fc.property(pattern, topic, (subscription, event) => {
        expect(topicMatcher(subscription)(event)).toBe(regexTopic(subscription)(event));
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('the pattern matcher in time', () => {
  const longKey = 'a'.repeat(2_000);
  const longTopic = Array.from({ length: 1_000 }, () => 'a').join('.');

  /** Patterns at the bounds that make a backtracking matcher take exponential time, or long scans. */
  const worstGlobs = [
    `${'*'.repeat(22)}!`,
    `${'*a'.repeat(MAX_PATTERN_WILDCARDS)}!`,
    `${'*'}${'a'.repeat(MAX_PATTERN_LENGTH - 2)}!`,
    `${'*?'.repeat(MAX_PATTERN_WILDCARDS / 2)}${'a'.repeat(MAX_PATTERN_LENGTH - MAX_PATTERN_WILDCARDS - 1)}!`,
    `${`*${'a'.repeat(14)}`.repeat(MAX_PATTERN_WILDCARDS)}!`.slice(-MAX_PATTERN_LENGTH),
    `*${'a?'.repeat(MAX_PATTERN_WILDCARDS - 2)}${'a'.repeat(MAX_PATTERN_LENGTH - 31)}!*`,
  ];
  const worstTopics = [
    `research.${'**.'.repeat(13)}x`,
    `${'**.'.repeat(MAX_PATTERN_WILDCARDS)}x`,
    `${'**.a.'.repeat(MAX_PATTERN_WILDCARDS)}x`,
    `**.${'a.'.repeat(120)}x`,
    `${'*.'.repeat(MAX_PATTERN_WILDCARDS - 1)}**.x`,
  ];

  it('answers each worst-case glob against a 2,000-character key in well under 10 ms', () => {
    for (const pattern of worstGlobs) {
      const matches = compileGlob(pattern);
      expect(matches(longKey)).toBe(false);
      expect(medianMs(() => matches(longKey))).toBeLessThan(10);
    }
  });

  it('answers each worst-case topic pattern against a 1,000-part topic in well under 10 ms', () => {
    for (const pattern of worstTopics) {
      const matches = topicMatcher(pattern);
      expect(matches(longTopic)).toBe(false);
      expect(medianMs(() => matches(longTopic))).toBeLessThan(10);
    }
  });

  it('has the bound-breaking attack patterns refused by the pattern bounds', () => {
    expect(patternProblem(`${'*'.repeat(22)}!`, 'glob')).toBe(
      'a pattern has at most 16 wildcards (* or ?); this one has 22: use fewer',
    );
    for (const pattern of worstGlobs.slice(1)) expect(patternProblem(pattern, 'glob')).toBeUndefined();
    for (const pattern of worstTopics) expect(patternProblem(pattern, 'topic')).toBeUndefined();
  });
});
