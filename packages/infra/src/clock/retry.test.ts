import { describe, expect, it } from 'vitest';
import { backoffFrom, retry } from './index.js';

/** A sleep that only records how long it was asked to wait: no real time passes. */
function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

function failingTimes(times: number, error: Error = new Error('busy')) {
  let calls = 0;
  return {
    calls: () => calls,
    fn: async (attempt: number) => {
      calls++;
      if (attempt < times) throw error;
      return `ok after ${attempt}`;
    },
  };
}

describe('retry', () => {
  it('retries a retryable failure after each backoff and returns the first success', async () => {
    const { waits, sleep } = recordingSleep();
    const flaky = failingTimes(2);
    const result = await retry(flaky.fn, {
      attempts: 5,
      backoffMs: (attempt) => 100 * 2 ** attempt,
      retryable: () => true,
      sleep,
    });
    expect([result, flaky.calls(), waits]).toEqual(['ok after 2', 3, [100, 200]]);
  });

  it('tells onRetry each failure, its attempt and the wait the backoff chose from it', async () => {
    const { sleep } = recordingSleep();
    const told: Array<[string, number, number]> = [];
    const flaky = failingTimes(2, new Error('slow down'));
    await retry(flaky.fn, {
      attempts: Number.POSITIVE_INFINITY,
      backoffMs: (attempt, error) =>
        error instanceof Error && error.message === 'slow down' ? 7_000 : attempt,
      retryable: () => true,
      onRetry: (error, attempt, waitMs) => told.push([String(error), attempt, waitMs]),
      sleep,
    });
    expect(told).toEqual([
      ['Error: slow down', 0, 7_000],
      ['Error: slow down', 1, 7_000],
    ]);
  });

  it('throws the last error as it was once the attempts are used up', async () => {
    const { waits, sleep } = recordingSleep();
    const busy = new Error('still busy');
    const flaky = failingTimes(10, busy);
    const outcome = retry(flaky.fn, { attempts: 3, backoffMs: () => 5, retryable: () => true, sleep });
    await expect(outcome).rejects.toBe(busy);
    expect([flaky.calls(), waits]).toEqual([3, [5, 5]]);
  });

  it('throws at once an error retryable refuses', async () => {
    const { waits, sleep } = recordingSleep();
    const refused = new Error('bad token');
    const flaky = failingTimes(10, refused);
    const outcome = retry(flaky.fn, {
      attempts: 5,
      backoffMs: () => 5,
      retryable: (error) => error !== refused,
      sleep,
    });
    await expect(outcome).rejects.toBe(refused);
    expect([flaky.calls(), waits]).toEqual([1, []]);
  });

  it('stops retrying once its signal aborts, with the signal reason', async () => {
    const controller = new AbortController();
    const flaky = failingTimes(10);
    const outcome = retry(flaky.fn, {
      attempts: 5,
      backoffMs: () => 5,
      retryable: () => true,
      signal: controller.signal,
      sleep: async () => controller.abort(new Error('shutting down')),
    });
    await expect(outcome).rejects.toThrow('shutting down');
    expect(flaky.calls()).toBe(2);
  });
});

describe('backoffFrom', () => {
  it('walks a schedule and keeps its last delay after it', () => {
    const backoff = backoffFrom([100, 300, 1_000]);
    expect([0, 1, 2, 3, 9].map(backoff)).toEqual([100, 300, 1_000, 1_000, 1_000]);
  });
});
