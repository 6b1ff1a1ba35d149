import { describe, expect, it } from 'vitest';
import { Chaos, exactlyOnce, seededRandom } from './chaos.js';

describe('Chaos', () => {
  it('gives the same decisions for the same seed', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    expect(Array.from({ length: 5 }, a)).toEqual(Array.from({ length: 5 }, b));
    expect(seededRandom(8)()).not.toBe(seededRandom(7)());
  });

  it('cuts a batch at a drop when the platform redelivers, and injects every kind of fault', () => {
    const chaos = new Chaos(1, { drop: 0, duplicate: 0, replay: 0, delay: 0, failSend: 0 });
    const batches = Array.from({ length: 8 }, () => chaos.deliver([1, 2, 3], [0], { redeliver: true }));
    for (let index = 0; index < 8; index++) chaos.delayMs();
    for (let index = 0; index < 8; index++) chaos.failSend();
    // Rates of zero still see each kind once: forced after a few chances.
    expect(Object.values(chaos.tally).every((count) => count === 1)).toBe(true);
    expect(batches.some((batch) => batch[0] === 1 && batch.length < 3 && !batch.includes(3))).toBe(true);
  });

  it('reports missing and duplicated replies', () => {
    const counts: Record<string, number> = { a: 1, b: 0, c: 2 };
    expect(exactlyOnce(['a', 'b', 'c'], (message) => counts[message] ?? 0)).toEqual({
      missing: ['b'],
      duplicated: ['c'],
    });
  });
});
