import { describe, expect, it } from 'vitest';
import { tokenOverlap } from './token-overlap.js';

describe('tokenOverlap', () => {
  it('is 1 for the same words in another layout and case', () => {
    expect(tokenOverlap('Hello,\n\nWorld!  again', 'hello world again').f1).toBe(1);
  });

  it('scores missing words as lost recall and extra words as lost precision', () => {
    const missing = tokenOverlap('a b', 'a b c d');
    const extra = tokenOverlap('a b c d', 'a b');
    expect(missing).toMatchObject({ precision: 1, recall: 0.5 });
    expect(extra).toMatchObject({ precision: 0.5, recall: 1 });
    expect(missing.f1).toBeCloseTo(2 / 3);
  });

  it('counts repeated words only as often as the reference has them', () => {
    expect(tokenOverlap('spam spam spam', 'spam').precision).toBeCloseTo(1 / 3);
  });

  it('is 0 when either side is empty', () => {
    expect(tokenOverlap('', 'words').f1).toBe(0);
  });
});
