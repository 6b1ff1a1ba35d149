/** A cancellable timer from a {@link Clock}. */
export interface Timer {
  cancel(): void;
}

/**
 * Time, as every component that waits or timestamps sees it. Pass one in; tests pass a
 * {@link FakeClock} and move time by hand (cron, cooldowns, decay, watchdogs, backoff).
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Run `callback` once after `ms`. */
  setTimeout(callback: () => void, ms: number): Timer;
  /** Resolve after `ms`; reject with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `Date.now` and Node timers. Timers do not keep the process alive on their own. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const handle = setTimeout(callback, ms);
    handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
  sleep: (ms, signal) => sleepOn(systemClock, ms, signal),
};

/** `sleep` for any clock, in terms of its `setTimeout`. */
export function sleepOn(clock: Pick<Clock, 'setTimeout'>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
