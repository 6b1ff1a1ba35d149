import { describe, expect, it } from 'vitest';
import { pageCounts, shingleScore, shingles } from './shingle-score.js';

describe('shingles', () => {
  it('are the multiset of word 4-grams, case kept, punctuation splitting words', () => {
    expect(Object.fromEntries(shingles("Don't stop, don't stop now"))).toEqual({
      'Don t stop don': 1,
      't stop don t': 1,
      'stop don t stop': 1,
      'don t stop now': 1,
    });
    expect(Object.fromEntries(shingles('a b c d a b c d'))).toEqual({
      'a b c d': 2,
      'b c d a': 1,
      'c d a b': 1,
      'd a b c': 1,
    });
  });

  it('make a text of fewer than 4 words one shingle', () => {
    expect(Object.fromEntries(shingles('only three words'))).toEqual({ 'only three words': 1 });
  });

  it('count letters of any script, numbers and underscores as words, as Python re does', () => {
    expect(Object.fromEntries(shingles('日本 café ½ snake_case'))).toEqual({ '日本 café ½ snake_case': 1 });
  });
});

describe('pageCounts', () => {
  it('is all true positives for the same words in another layout', () => {
    expect(pageCounts('One two three four five.', 'One\n\ntwo three -- four five')).toEqual({
      tp: 1,
      fp: 0,
      fn: 0,
    });
  });

  it('normalises a page so its counts sum to 1', () => {
    // Truth: "a b c d", "b c d e"; prediction: "a b c d", "b c d x".
    expect(pageCounts('a b c d e', 'a b c d x')).toEqual({ tp: 1 / 3, fp: 1 / 3, fn: 1 / 3 });
  });

  it('counts a repeated shingle only as often as the truth has it', () => {
    // The prediction has "a b c d" twice and three other shingles; the truth has "a b c d" once.
    expect(pageCounts('a b c d', 'a b c d a b c d')).toEqual({ tp: 1 / 5, fp: 4 / 5, fn: 0 });
  });
});

describe('shingleScore', () => {
  it('takes F1 of the mean precision and mean recall, not the mean of per-page F1s', () => {
    const score = shingleScore([
      { tp: 1, fp: 0, fn: 0 },
      { tp: 0.5, fp: 0.5, fn: 0 },
    ]);
    expect(score.precision).toBeCloseTo(0.75);
    expect(score.recall).toBeCloseTo(1);
    expect(score.f1).toBeCloseTo((2 * 0.75) / 1.75);
  });

  it('leaves a page out of the precision mean when nothing was predicted that could be right', () => {
    const score = shingleScore([
      { tp: 0, fp: 0, fn: 1 },
      { tp: 0.5, fp: 0, fn: 0.5 },
    ]);
    expect(score).toEqual({ precision: 1, recall: 0.25, f1: 0.4 });
  });

  it('is 0 with no pages', () => {
    expect(shingleScore([])).toEqual({ f1: 0, precision: 0, recall: 0 });
  });
});
