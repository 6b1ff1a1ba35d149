import { FakeClock } from '@openlegion/infra/clock';
import { describe, expect, it } from 'vitest';
import { TokenBuckets } from './token-buckets.js';

describe('TokenBuckets', () => {
  it('reserves past an empty bucket by making each request wait its turn, up to the longest wait allowed', async () => {
    const clock = new FakeClock(0);
    const buckets = new TokenBuckets(10, 2, () => clock.now());
    expect(buckets.reserve('a', 1, 300)).toEqual({ ok: true, waitMs: 0 });
    expect(buckets.reserve('a', 1, 300)).toEqual({ ok: true, waitMs: 0 });
    // Empty: each next one waits a tenth of a second longer than the one before.
    expect(buckets.reserve('a', 1, 300)).toEqual({ ok: true, waitMs: 100 });
    expect(buckets.reserve('a', 1, 300)).toEqual({ ok: true, waitMs: 200 });
    expect(buckets.reserve('a', 1, 300)).toEqual({ ok: true, waitMs: 300 });
    expect(buckets.reserve('a', 1, 300)).toEqual({ ok: false, retryAfterMs: 100 });
    expect(buckets.reserve('b', 1, 300)).toEqual({ ok: true, waitMs: 0 });
    await clock.advance(100);
    expect(buckets.reserve('a', 1, 300)).toEqual({ ok: true, waitMs: 300 });
  });

  it('takes without borrowing: what is missing, in ms, and nothing spent', async () => {
    const clock = new FakeClock(0);
    const buckets = new TokenBuckets(10, 2, () => clock.now());
    expect(buckets.take('a', 2)).toBe(0);
    expect(buckets.take('a', 1)).toBe(100);
    await clock.advance(50);
    expect(buckets.take('a', 1)).toBe(50);
    await clock.advance(50);
    expect(buckets.take('a', 1)).toBe(0);
  });
});
