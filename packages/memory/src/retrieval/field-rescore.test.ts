import { describe, expect, it } from 'vitest';
import { questionShare } from './field-rescore.js';

describe('questionShare', () => {
  it('is the share of sentences ending with a question mark', () => {
    expect(questionShare('I play the violin. Do you play too?')).toBe(0.5);
    expect(questionShare('How long have you played? Since when? I wonder.')).toBeCloseTo(2 / 3, 12);
  });

  it('is 1 for a lone question and 0 for statements', () => {
    expect(questionShare('Do you play the violin?')).toBe(1);
    expect(questionShare('I play the violin every evening!')).toBe(0);
  });

  it('counts a question mark followed by spaces and ignores punctuation without words', () => {
    expect(questionShare('Really?   ')).toBe(1);
    expect(questionShare('Sure... ?! Why not?')).toBe(0.5);
  });

  it('is 0 for a text without words', () => {
    expect(questionShare('')).toBe(0);
    expect(questionShare('?!')).toBe(0);
  });
});
