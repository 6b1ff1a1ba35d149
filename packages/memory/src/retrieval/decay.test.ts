import { describe, expect, it } from 'vitest';
import { sampleItem } from '../model/memory-item.fixture.js';
import { compositeDecay, decayMultiplier, frequencyScore, intrinsicScore, recencyScore } from './decay.js';

const DAY = 86_400_000;
const NOW = 1_000 * DAY;

const item = sampleItem;

describe('recencyScore', () => {
  it('halves after the 30-day half-life for a working item of no importance', () => {
    expect(recencyScore(item({ createdAt: NOW - 30 * DAY }), NOW)).toBeCloseTo(0.5, 6);
  });

  it('stretches the half-life by exp(1.5 · importance)', () => {
    const halfLife = 30 * Math.exp(1.5);
    expect(recencyScore(item({ importance: 1, createdAt: NOW - halfLife * DAY }), NOW)).toBeCloseTo(0.5, 6);
  });

  it('ages dynamic facts three times faster', () => {
    expect(recencyScore(item({ temporalType: 'dynamic', createdAt: NOW - 10 * DAY }), NOW)).toBeCloseTo(
      0.5,
      6,
    );
  });

  it('uses the Weibull shape of the tier: exp(-λ · days^β)', () => {
    const lambda = Math.LN2 / 30;
    const aged = { createdAt: NOW - 60 * DAY };
    expect(recencyScore(item({ ...aged, tier: 'core' }), NOW)).toBeCloseTo(Math.exp(-lambda * 60 ** 0.8), 9);
    expect(recencyScore(item({ ...aged, tier: 'peripheral' }), NOW)).toBeCloseTo(
      Math.exp(-lambda * 60 ** 1.3),
      9,
    );
  });

  it('counts from the last access once an item was accessed', () => {
    const accessed = item({ createdAt: NOW - 300 * DAY, accessCount: 2, lastAccessedAt: NOW - 30 * DAY });
    expect(recencyScore(accessed, NOW)).toBeCloseTo(0.5, 6);
  });
});

describe('frequencyScore', () => {
  it('is 0 for an item never accessed', () => {
    expect(frequencyScore(item(), NOW)).toBe(0);
  });

  it('is (1 - e^(-n/5)) · (0.5 + 0.5 · e^(-avgGap/30))', () => {
    const accessed = item({ createdAt: NOW - 60 * DAY, accessCount: 5, lastAccessedAt: NOW });
    const expected = (1 - Math.exp(-1)) * (0.5 + 0.5 * Math.exp(-12 / 30));
    expect(frequencyScore(accessed, NOW)).toBeCloseTo(expected, 9);
  });
});

describe('compositeDecay and decayMultiplier', () => {
  it('weighs recency 0.4, frequency 0.3 and intrinsic 0.3', () => {
    const fresh = item({ importance: 0.5, confidence: 0.8 });
    expect(intrinsicScore(fresh)).toBeCloseTo(0.4, 9);
    expect(compositeDecay(fresh, NOW)).toBeCloseTo(0.4 * 1 + 0 + 0.3 * 0.4, 9);
  });

  it('never lets the multiplier fall below the tier floor', () => {
    const ancient = { createdAt: NOW - 10_000 * DAY };
    expect(decayMultiplier(item({ ...ancient, tier: 'core' }), NOW)).toBeCloseTo(0.3 + 0.7 * 0.9, 9);
    expect(decayMultiplier(item({ ...ancient, tier: 'peripheral' }), NOW)).toBeCloseTo(0.3 + 0.7 * 0.5, 9);
  });

  it('stays within [0.3, 1]', () => {
    const best = item({ tier: 'core', importance: 1, confidence: 1, accessCount: 50, lastAccessedAt: NOW });
    expect(decayMultiplier(best, NOW)).toBeLessThanOrEqual(1);
    expect(decayMultiplier(best, NOW)).toBeGreaterThan(0.9);
  });
});
