import { describe, expect, it } from 'vitest';
import { firstRun, nextRunAfter, parseSchedule, TOP_OF_HOUR_JITTER_MS } from './schedule.js';

const NOON = Date.parse('2026-03-02T12:00:00Z');

describe('parseSchedule', () => {
  it.each([
    ['*/0 * * * *', /illegal stepping: 0/],
    ['61 * * * *', /Invalid value for minute: 61/],
    ['*/-5 * * * *', /illegal range with stepping/],
    ['* * * *', /use 5 cron fields/],
    ['*/5 * * * * *', /use 5 cron fields/],
    ['every 0m', /at least 1/],
    ['at next tuesday', /not a date and time/],
  ])('refuses %s with a message saying what is wrong', (text, message) => {
    expect(() => parseSchedule(text)).toThrow(message);
  });

  it('refuses an unknown timezone', () => {
    expect(() => parseSchedule('0 9 * * *', 'Mars/Base')).toThrow(/"Mars\/Base" is not a timezone/);
  });

  it('reads intervals, one-shots and cron expressions', () => {
    expect(parseSchedule('every 15m')).toEqual({ kind: 'every', intervalMs: 900_000 });
    expect(parseSchedule('at 2026-12-01T09:00:00Z')).toEqual({
      kind: 'at',
      atMs: Date.parse('2026-12-01T09:00:00Z'),
    });
    expect(parseSchedule('30 9 * * 1-5', 'Europe/Berlin')).toEqual({
      kind: 'cron',
      expression: '30 9 * * 1-5',
      timezone: 'Europe/Berlin',
    });
  });
});

describe('next runs', () => {
  it('runs an interval on its first tick, then once per interval', () => {
    const every = parseSchedule('every 5s');
    expect(firstRun(every, NOON, 'job')).toBe(NOON);
    expect(nextRunAfter(every, NOON, 'job')).toBe(NOON + 5_000);
  });

  it('runs a one-shot once and then never', () => {
    const at = parseSchedule('at 2026-03-02T13:00:00Z');
    expect(nextRunAfter(at, NOON, 'job')).toBe(NOON + 3_600_000);
    expect(nextRunAfter(at, NOON + 3_600_000, 'job')).toBeUndefined();
  });

  it('follows the timezone of a cron expression', () => {
    // 09:30 in Berlin is 08:30 UTC in March (CET).
    expect(nextRunAfter(parseSchedule('30 9 * * *', 'Europe/Berlin'), NOON, 'job')).toBe(
      Date.parse('2026-03-03T08:30:00Z'),
    );
  });

  it('spreads top-of-hour jobs by a stable jitter of under two minutes', () => {
    const hourly = parseSchedule('0 * * * *');
    const fivePast = NOON + 300_000;
    const runs = ['a#0', 'b#0', 'c#0', 'd#0'].map((id) => nextRunAfter(hourly, fivePast, id) ?? 0);
    const hour = Date.parse('2026-03-02T13:00:00Z');
    for (const run of runs) expect(run - hour).toBeGreaterThanOrEqual(0);
    for (const run of runs) expect(run - hour).toBeLessThan(TOP_OF_HOUR_JITTER_MS);
    expect(new Set(runs).size).toBeGreaterThan(1);
    expect(nextRunAfter(hourly, fivePast, 'a#0')).toBe(runs[0]);
  });
});
