import { describe, expect, it } from 'vitest';
import { FakeClock } from './index.js';

describe('FakeClock', () => {
  it('fires timers in time order when advanced past them, and not before', async () => {
    const clock = new FakeClock(1_000);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('late'), 200);
    clock.setTimeout(() => fired.push('early'), 100);
    await clock.advance(99);
    expect(fired).toEqual([]);
    await clock.advance(101);
    expect(fired).toEqual(['early', 'late']);
    expect(clock.now()).toBe(1_200);
  });

  it('runs timers set by callbacks inside the same window', async () => {
    const clock = new FakeClock();
    const ticks: number[] = [];
    const tick = () => {
      ticks.push(clock.now());
      if (ticks.length < 3) clock.setTimeout(tick, 10);
    };
    clock.setTimeout(tick, 10);
    await clock.advance(100);
    expect(ticks).toEqual([10, 20, 30]);
  });

  it('resolves an awaited sleep and lets the code after it run before the next timer', async () => {
    const clock = new FakeClock();
    const order: string[] = [];
    void clock.sleep(5).then(() => order.push('after sleep'));
    clock.setTimeout(() => order.push('timer at 6'), 6);
    await clock.advance(10);
    expect(order).toEqual(['after sleep', 'timer at 6']);
  });

  it('cancels a timer and rejects a sleep whose signal aborts', async () => {
    const clock = new FakeClock();
    let fired = false;
    clock
      .setTimeout(() => {
        fired = true;
      }, 5)
      .cancel();
    const controller = new AbortController();
    const sleeping = clock.sleep(50, controller.signal);
    controller.abort(new Error('stopped'));
    await expect(sleeping).rejects.toThrow('stopped');
    await clock.advance(100);
    expect(fired).toBe(false);
    expect(clock.pendingTimers).toBe(0);
  });
});
