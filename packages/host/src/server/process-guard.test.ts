import { describe, expect, it } from 'vitest';
import { installProcessGuard } from './process-guard.js';

/** A logger that keeps what was logged at error level. */
function recordingLogger(expected: number) {
  const errors: Array<{ message: string; err: unknown }> = [];
  let allLogged = () => {};
  const logged = new Promise<void>((resolve) => {
    allLogged = resolve;
  });
  const logger = {
    error: (fields: { err: unknown }, message: string) => {
      errors.push({ message, err: fields.err });
      if (errors.length === expected) allLogged();
    },
  };
  return { errors, logged, logger: logger as unknown as Parameters<typeof installProcessGuard>[0] };
}

/**
 * Run `body` with vitest's own listeners set aside (they would report the escape as a failed run),
 * so the process has only the guard to keep it alive; put them back afterwards.
 */
async function withOnlyTheGuard(body: () => Promise<void>): Promise<void> {
  const exceptions = process.listeners('uncaughtException');
  const rejections = process.listeners('unhandledRejection');
  process.removeAllListeners('uncaughtException');
  process.removeAllListeners('unhandledRejection');
  try {
    await body();
  } finally {
    process.removeAllListeners('uncaughtException');
    process.removeAllListeners('unhandledRejection');
    for (const listener of exceptions) process.on('uncaughtException', listener);
    for (const listener of rejections) process.on('unhandledRejection', listener);
  }
}

describe('installProcessGuard', () => {
  it('logs an exception thrown from a callback and an unhandled rejection, and the process runs on', async () => {
    const { errors, logged, logger } = recordingLogger(2);
    await withOnlyTheGuard(async () => {
      const remove = installProcessGuard(logger);
      try {
        setImmediate(() => {
          throw new Error('a handler threw');
        });
        void Promise.reject(new Error('nobody awaited this'));
        await logged;
      } finally {
        remove();
      }
      expect(process.listenerCount('uncaughtException')).toBe(0);
      expect(process.listenerCount('unhandledRejection')).toBe(0);
    });
    expect(errors.map((entry) => [entry.message, (entry.err as Error).message]).sort()).toEqual([
      ['uncaught exception; the host keeps serving', 'a handler threw'],
      ['unhandled promise rejection; the host keeps serving', 'nobody awaited this'],
    ]);
  });
});
