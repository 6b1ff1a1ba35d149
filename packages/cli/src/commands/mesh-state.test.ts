import { describe, expect, it } from 'vitest';
import { nestedHop, spendName, spendPayer } from './mesh-state.js';

describe('openlegion traces ID', () => {
  it("indents a subagent's hop under its agent by depth, named by its own id", () => {
    expect(nestedHop({ hop: 'http POST /v1/chat/completions', detail: { status: 200 } })).toBe(
      'http POST /v1/chat/completions',
    );
    expect(
      nestedHop({
        hop: 'http POST /v1/chat/completions',
        detail: { status: 200, subagent: 'sub-1a2b3c4d/sub-5e6f7a8b', depth: 2 },
      }),
    ).toBe('    ↳ sub-5e6f7a8b http POST /v1/chat/completions');
  });
});

describe('openlegion costs', () => {
  it("shows a temporary agent's spend under the agent that spawned it and pays for it", () => {
    const lead = { agent: 'lead', billed_to: 'lead' };
    const helper = { agent: 'researcher-3f2a', billed_to: 'lead' };
    expect(spendName(lead)).toBe('lead');
    expect(spendName({ agent: 'lead' })).toBe('lead');
    expect(spendName(helper)).toBe('  ↳ researcher-3f2a');
    // Under the payer's own row no header; a payer with no calls of its own gets a line.
    expect(spendPayer(helper, lead)).toBeUndefined();
    expect(spendPayer(helper, { agent: 'researcher-0000', billed_to: 'lead' })).toBeUndefined();
    expect(spendPayer(helper, { agent: 'other', billed_to: 'other' })).toBe('lead');
    expect(spendPayer(helper, undefined)).toBe('lead');
    expect(spendPayer(lead, undefined)).toBeUndefined();
  });
});
