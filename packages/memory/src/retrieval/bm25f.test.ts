import { describe, expect, it } from 'vitest';
import { type Bm25fField, bm25fScore, bm25Idf } from './bm25f.js';

const field = (counts: Record<string, number>, length: number, options: Partial<Bm25fField> = {}) => ({
  counts: new Map(Object.entries(counts)),
  length,
  averageLength: 10,
  weight: 1,
  b: 0.75,
  ...options,
});

describe('bm25fScore', () => {
  it('scores one occurrence in an average-length field as idf · (k1 + 1) / (1 + k1)', () => {
    const score = bm25fScore([{ term: 'violin', idf: 2 }], [field({ violin: 1 }, 10)], 1.2);
    expect(score).toBeCloseTo(2, 9);
  });

  it('penalises a longer field by its own b, and not at all when b is 0', () => {
    const terms = [{ term: 'violin', idf: 1 }];
    const short = bm25fScore(terms, [field({ violin: 1 }, 5)], 0.6);
    const long = bm25fScore(terms, [field({ violin: 1 }, 40)], 0.6);
    expect(long).toBeLessThan(short);
    const shortFlat = bm25fScore(terms, [field({ violin: 1 }, 5, { b: 0 })], 0.6);
    const longFlat = bm25fScore(terms, [field({ violin: 1 }, 40, { b: 0 })], 0.6);
    expect(longFlat).toBeCloseTo(shortFlat, 12);
  });

  it('adds weighted occurrences of all fields before saturating once', () => {
    const terms = [{ term: 'kayak', idf: 1 }];
    const k1 = 0.6;
    const both = bm25fScore(terms, [field({ kayak: 1 }, 10), field({ kayak: 1 }, 10, { weight: 0.5 })], k1);
    expect(both).toBeCloseTo((1.5 * (k1 + 1)) / (1.5 + k1), 12);
    expect(both).toBeLessThan(2 * bm25fScore(terms, [field({ kayak: 1 }, 10)], k1));
  });

  it('ignores a field weighted 0 and terms no field holds', () => {
    const terms = [
      { term: 'kayak', idf: 1 },
      { term: 'absent', idf: 5 },
    ];
    expect(bm25fScore(terms, [field({ kayak: 3 }, 10, { weight: 0 })], 1.2)).toBe(0);
    expect(bm25fScore(terms, [field({ kayak: 1 }, 10)], 1.2)).toBeCloseTo(1, 12);
  });

  it('never exceeds idf · (k1 + 1) per term, however often the term occurs', () => {
    const score = bm25fScore([{ term: 'x', idf: 3 }], [field({ x: 1_000 }, 10)], 0.6);
    expect(score).toBeLessThan(3 * 1.6);
    expect(score).toBeGreaterThan(3 * 1.59);
  });
});

describe('bm25Idf', () => {
  it('falls as a term is found in more items and stays positive when it is in all of them', () => {
    expect(bm25Idf(100, 1)).toBeGreaterThan(bm25Idf(100, 10));
    expect(bm25Idf(100, 10)).toBeGreaterThan(bm25Idf(100, 100));
    expect(bm25Idf(100, 100)).toBeGreaterThan(0);
    expect(bm25Idf(100, 1)).toBeCloseTo(Math.log(1 + 99.5 / 1.5), 12);
  });
});
