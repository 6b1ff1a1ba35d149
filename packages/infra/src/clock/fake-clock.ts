import { type Clock, sleepOn, type Timer } from './clock.js';

interface PendingTimer {
  at: number;
  order: number;
  callback: () => void;
}

/**
 * A clock that moves only when told to. `advance` runs every timer that falls due, in time order
 * (ties in the order they were set), including timers those callbacks set within the window.
 *
 * @example
 * const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
 * const done = clock.sleep(1_000);
 * await clock.advance(1_000); // `done` is now resolved
 */
export class FakeClock implements Clock {
  #now: number;
  #order = 0;
  readonly #timers = new Set<PendingTimer>();

  constructor(startMs = 0) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): Timer {
    const timer: PendingTimer = { at: this.#now + Math.max(0, ms), order: this.#order++, callback };
    this.#timers.add(timer);
    return { cancel: () => this.#timers.delete(timer) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** How many timers are waiting. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /**
   * Move time forward by `ms`, firing due timers in order. Awaits between timers so that promise
   * callbacks (an awaited `sleep`) run before the next timer fires, as they would in real time.
   */
  async advance(ms: number): Promise<void> {
    const until = this.#now + ms;
    for (let next = this.#nextDue(until); next; next = this.#nextDue(until)) {
      this.#timers.delete(next);
      this.#now = next.at;
      next.callback();
      await flushMicrotasks();
    }
    this.#now = until;
    await flushMicrotasks();
  }

  /** Jump to an absolute time (never backwards), firing what falls due. */
  advanceTo(epochMs: number): Promise<void> {
    return this.advance(Math.max(0, epochMs - this.#now));
  }

  #nextDue(until: number): PendingTimer | undefined {
    let next: PendingTimer | undefined;
    for (const timer of this.#timers) {
      if (timer.at > until) continue;
      if (!next || timer.at < next.at || (timer.at === next.at && timer.order < next.order)) next = timer;
    }
    return next;
  }
}

/** Let queued promise callbacks run (several turns, for chains of awaits). */
async function flushMicrotasks(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await Promise.resolve();
}
