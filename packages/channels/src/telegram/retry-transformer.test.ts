import { FakeClock } from '@openlegion/infra/clock';
import { type ApiCallFn, HttpError } from 'grammy';
import type { ApiResponse } from 'grammy/types';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { retryTransformer } from './retry-transformer.js';

type Answer = ApiResponse<unknown> | Error;

/** Call `sendMessage` through the transformer against scripted answers; returns the result and when each try happened. */
function setup(answers: Answer[], maxAttempts?: number) {
  const clock = new FakeClock(0);
  const triedAt: number[] = [];
  const prev = (async () => {
    triedAt.push(clock.now());
    const answer = answers.shift() ?? { ok: true, result: 'done' };
    if (answer instanceof Error) throw answer;
    return answer;
  }) as unknown as ApiCallFn;
  const transformer = retryTransformer({
    clock,
    logger: pino({ level: 'silent' }),
    ...(maxAttempts ? { maxAttempts: () => maxAttempts } : {}),
  });
  const result = transformer(prev, 'sendMessage', { chat_id: 1, text: 'x' });
  // Let the first try answer and the wait begin before a test moves the clock.
  const begun = clock.advance(0);
  return { clock, triedAt, result, begun };
}

const tooMany = (seconds: number): ApiResponse<unknown> => ({
  ok: false,
  error_code: 429,
  description: `Too Many Requests: retry after ${seconds}`,
  parameters: { retry_after: seconds },
});

describe('retryTransformer', () => {
  it('waits exactly retry_after after a 429 before trying again', async () => {
    const { clock, triedAt, result, begun } = setup([tooMany(7)]);
    await begun;
    await clock.advance(6_999);
    expect(triedAt).toEqual([0]);
    await clock.advance(1);
    await expect(result).resolves.toEqual({ ok: true, result: 'done' });
    expect(triedAt).toEqual([0, 7_000]);
  });

  it('backs off exponentially after 5xx answers and network errors', async () => {
    const bad = { ok: false, error_code: 502, description: 'Bad Gateway' } as const;
    const { clock, triedAt, result, begun } = setup([
      bad,
      new HttpError('socket hang up', new Error('cut')),
      bad,
    ]);
    await begun;
    await clock.advance(60_000);
    await expect(result).resolves.toMatchObject({ ok: true });
    expect(triedAt).toEqual([0, 1_000, 3_000, 7_000]);
  });

  it('answers other errors at once, without retrying', async () => {
    const refused = { ok: false, error_code: 400, description: 'Bad Request: chat not found' } as const;
    const { triedAt, result } = setup([refused]);
    await expect(result).resolves.toEqual(refused);
    expect(triedAt).toEqual([0]);
  });

  it('gives up after the allowed number of tries', async () => {
    const bad = { ok: false, error_code: 503, description: 'Service Unavailable' } as const;
    const { clock, triedAt, result, begun } = setup([bad, bad, bad, bad], 3);
    await begun;
    await clock.advance(60_000);
    await expect(result).resolves.toEqual(bad);
    expect(triedAt).toEqual([0, 1_000, 3_000]);
  });
});
