import type { FakeTelegramUpdate } from './bot-api-types.js';

type NewUpdate = Omit<FakeTelegramUpdate, 'update_id'>;

interface Waiter {
  wake: () => void;
}

/**
 * The updates waiting for the bot, with getUpdates' rules: an `offset` confirms (drops) every
 * update below it; a call with `timeout` waits until an update arrives, the timeout passes or the
 * client goes away (long polling).
 */
export class UpdateQueue {
  readonly #pending: FakeTelegramUpdate[] = [];
  readonly #all: FakeTelegramUpdate[] = [];
  readonly #waiters = new Set<Waiter>();
  #nextId = 1;

  /** Queue an update; its `update_id` is the next in sequence. */
  push(update: NewUpdate): FakeTelegramUpdate {
    const full = { update_id: this.#nextId++, ...update };
    this.#pending.push(full);
    this.#all.push(full);
    for (const waiter of this.#waiters) waiter.wake();
    return full;
  }

  /** Every update ever queued, confirmed or not (a chaos test replays them). */
  get all(): readonly FakeTelegramUpdate[] {
    return this.#all;
  }

  /** Updates not yet confirmed by an offset. */
  get pending(): readonly FakeTelegramUpdate[] {
    return this.#pending;
  }

  /** Drop every update below `offset`, as Telegram does when getUpdates confirms them. */
  confirm(offset: number): void {
    while (this.#pending.length > 0 && (this.#pending[0]?.update_id ?? 0) < offset) this.#pending.shift();
  }

  /** getUpdates: confirm, then answer what is there or wait for it. */
  async take(
    offset: number | undefined,
    limit: number,
    timeoutSeconds: number,
    signal: AbortSignal,
  ): Promise<FakeTelegramUpdate[]> {
    if (offset !== undefined) this.confirm(offset);
    if (this.#pending.length === 0 && timeoutSeconds > 0) await this.#wait(timeoutSeconds * 1000, signal);
    return this.#pending.slice(0, limit);
  }

  #wait(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const waiter: Waiter = { wake: () => done() };
      const timer = setTimeout(() => done(), ms);
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.#waiters.add(waiter);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
