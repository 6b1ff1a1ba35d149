import { describe, expect, it } from 'vitest';
import { fuseScores, normalizeBm25 } from './fusion.js';
import { DEFAULT_RETRIEVAL_CONFIG } from './retrieval-config.js';

/** The memory design's fusion constants (0.7/0.3 with the exact-match floor), which the formula is checked with. */
const config = {
  ...DEFAULT_RETRIEVAL_CONFIG,
  vectorWeight: 0.7,
  bm25Weight: 0.3,
  exactMatchBm25: 0.75,
  exactMatchFactor: 0.92,
};

describe('fuseScores', () => {
  it('is 0.7 · vector + 0.3 · bm25 below the exact-match floor', () => {
    expect(fuseScores(0.6, 0.5, config)).toBeCloseTo(0.57, 9);
  });

  it('lifts a strong BM25 match to 0.92 · bm25 when that is higher (bm25 ≥ 0.75)', () => {
    expect(fuseScores(0.2, 0.8, config)).toBeCloseTo(0.736, 9);
    expect(fuseScores(0.2, 0.74, config)).toBeCloseTo(0.7 * 0.2 + 0.3 * 0.74, 9);
  });

  it('keeps the weighted sum when it beats the floor', () => {
    expect(fuseScores(1, 0.8, config)).toBeCloseTo(0.94, 9);
  });

  it('clamps into [0.1, 1]', () => {
    expect(fuseScores(0, 0, config)).toBe(0.1);
    expect(fuseScores(1, 1, config)).toBe(1);
  });

  it('never applies the floor with the default config, whose exactMatchBm25 is above 1', () => {
    expect(fuseScores(0.2, 1, DEFAULT_RETRIEVAL_CONFIG)).toBeCloseTo(0.35 * 0.2 + 0.65 * 1, 9);
  });

  it('uses the one signal that ran when the other did not (null)', () => {
    expect(fuseScores(null, 0.5, config)).toBe(0.5);
    expect(fuseScores(0.5, null, config)).toBe(0.5);
  });
});

describe('normalizeBm25', () => {
  it('scales relative to the best hit', () => {
    expect(normalizeBm25(2, 4, new Set(), 'text')).toBe(0.5);
  });

  it('multiplies by the share of query terms the text holds when terms are given', () => {
    expect(normalizeBm25(4, 4, new Set(['cat', 'dog']), 'the cats sleep')).toBe(0.5);
  });

  it('is 0 when nothing scored', () => {
    expect(normalizeBm25(0, 0, new Set(), 'text')).toBe(0);
  });
});
