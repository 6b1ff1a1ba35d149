import { meshConfigSchema } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import type { BudgetGate, Reservation } from './budget-gate.js';
import { CostMeter } from './cost-meter.js';
import type { UsageLog } from './usage-log.js';

// $3 per million prompt tokens, so a reservation of n prompt tokens (and no output) is 3n / 1e6.
const config = meshConfigSchema.parse({
  llm: { default_model: 'up/m', prices: { 'up/m': { input: 3, output: 0 } }, providers: { up: {} } },
  agents: { a: {} },
});

/** A meter whose gate notes what each call reserved. */
function meter(): { meter: CostMeter; reserved: number[] } {
  const reserved: number[] = [];
  const gate = {
    reserve: (agent: string, usd: number): Reservation => {
      reserved.push(usd);
      return { agent, usd, accounts: [agent], released: false };
    },
    release: () => {},
    recorded: () => {},
  } as unknown as BudgetGate;
  const log = {} as UsageLog;
  return { meter: new CostMeter({ config, log, gate, now: () => 0, warn: () => {} }), reserved };
}

const call = {
  agent: 'a',
  model: 'up/m',
  kind: 'chat' as const,
  body: { model: 'up/m', max_tokens: 0, messages: [{ role: 'user', content: 'x'.repeat(300) }] },
  requestId: 'r',
  traceId: null,
};

describe('CostMeter reservations', () => {
  it('bounds the prompt by the body length as received, without serialising the messages again', () => {
    const { meter: costs, reserved } = meter();
    costs.open({ ...call, bodyLength: 3_000 });
    expect(reserved).toEqual([(1_000 * 3) / 1e6]);
  });

  it('falls back to the messages as JSON when the body length is not known (a chunked body)', () => {
    const { meter: costs, reserved } = meter();
    costs.open(call);
    const json = JSON.stringify(call.body.messages).length;
    expect(reserved).toEqual([(Math.ceil(json / 3) * 3) / 1e6]);
  });
});
