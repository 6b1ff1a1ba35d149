import { FakeClock } from '@openlegion/infra/clock';
import { describe, expect, it } from 'vitest';
import { LogBudget } from './log-budget.js';

describe('LogBudget', () => {
  it('writes a burst of ten seconds of lines, counts the rest, and says how many it left out', async () => {
    const clock = new FakeClock(0);
    const budget = new LogBudget(2, () => clock.now());
    const written = Array.from({ length: 25 }, () => budget.admit('mallory')).filter((line) => line.write);
    expect(written).toHaveLength(20);
    expect(written.every((line) => line.write && line.skipped === 0)).toBe(true);
    expect(budget.admit('alice')).toEqual({ write: true, skipped: 0 });
    await clock.advance(500);
    expect(budget.admit('mallory')).toEqual({ write: true, skipped: 5 });
    expect(budget.admit('mallory')).toEqual({ write: false });
    await clock.advance(500);
    expect(budget.admit('mallory')).toEqual({ write: true, skipped: 1 });
  });
});
