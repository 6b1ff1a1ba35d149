import { meshConfigSchema, OpenLegionError } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { BudgetGate } from './budget-gate.js';
import type { UsageLog } from './usage-log.js';

const config = meshConfigSchema.parse({
  llm: { providers: { openai: {} } },
  agents: { a: { budget: { monthly_usd: 1 } } },
});

/** What `reserve` threw, as the protocol error it must be. */
function refusal(reserve: () => unknown): OpenLegionError {
  try {
    reserve();
  } catch (error) {
    if (error instanceof OpenLegionError) return error;
    throw error;
  }
  throw new Error('the reservation was not refused');
}

describe('BudgetGate monthly windows', () => {
  it('counts spend from the start of the current UTC month and names its end as the reset, also once the month turns', () => {
    // Spent in the log since each window start: $0.90 in January, $0.95 in February.
    const spentSince = new Map([
      [Date.UTC(2026, 0, 1), 0.9],
      [Date.UTC(2026, 1, 1), 0.95],
    ]);
    const log = {
      billed: (_agent: string, since: number) => spentSince.get(since) ?? 0,
    } as unknown as UsageLog;
    let now = Date.UTC(2026, 0, 31, 23, 0);
    const gate = new BudgetGate(config, log, () => now);

    gate.release(gate.reserve('a', 0.05));
    expect(refusal(() => gate.reserve('a', 0.2)).details).toMatchObject({
      budget: 'monthly',
      spent_usd: 0.9,
      resets_at: '2026-02-01T00:00:00.000Z',
    });

    now = Date.UTC(2026, 1, 1, 0, 30);
    expect(refusal(() => gate.reserve('a', 0.1)).details).toMatchObject({
      spent_usd: 0.95,
      resets_at: '2026-03-01T00:00:00.000Z',
    });
    gate.release(gate.reserve('a', 0.05));
  });
});
