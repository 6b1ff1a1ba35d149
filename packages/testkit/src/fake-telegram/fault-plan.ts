import type { FakeTelegramFault } from './bot-api-types.js';

/** Faults waiting for the next calls of a method (or of any method, `*`), in the order added. */
export class FaultPlan {
  readonly #planned: { method: string; fault: FakeTelegramFault; left: number }[] = [];

  add(method: string, fault: FakeTelegramFault, times: number): void {
    this.#planned.push({ method, fault, left: times });
  }

  /** The fault for this call of `method`, if one is planned; uses it up. */
  take(method: string): FakeTelegramFault | undefined {
    const index = this.#planned.findIndex((entry) => entry.method === method || entry.method === '*');
    const entry = this.#planned[index];
    if (!entry) return undefined;
    entry.left -= 1;
    if (entry.left <= 0) this.#planned.splice(index, 1);
    return entry.fault;
  }
}
