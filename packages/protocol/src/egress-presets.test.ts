import { describe, expect, it } from 'vitest';
import { agentSchema } from './agent-config.js';
import { egressEntrySchema, egressPresetProblem, isEgressPreset } from './egress-presets.js';
import { egressReasonHeaderValue } from './egress-refusal.js';

describe('egress presets', () => {
  it("accepts '@web' beside host globs, literal addresses and CIDRs", () => {
    const parsed = agentSchema.parse({
      permissions: { egress: ['@web', '*.wikipedia.org', 'web', '93.184.216.34', '10.1.0.0/16'] },
    });
    expect(parsed.permissions.egress).toEqual([
      '@web',
      '*.wikipedia.org',
      'web',
      '93.184.216.34',
      '10.1.0.0/16',
    ]);
    expect(isEgressPreset('@web')).toBe(true);
    expect(isEgressPreset('web')).toBe(false);
  });

  it('refuses an unknown preset, listing the known ones', () => {
    const issue = egressEntrySchema.safeParse('@internet').error?.issues[0];
    expect(issue?.message).toBe(
      "unknown egress preset '@internet': the known presets are '@web' (any public host)",
    );
    const nested = agentSchema.safeParse({ permissions: { egress: ['example.com', '@Web'] } });
    expect(nested.error?.issues[0]).toMatchObject({
      path: ['permissions', 'egress', 1],
      message: "unknown egress preset '@Web': the known presets are '@web' (any public host)",
    });
    expect(egressPresetProblem('example.com')).toBeUndefined();
  });
});

describe('egress reason header', () => {
  it('keeps a reason to one bounded line of printable ASCII', () => {
    expect(egressReasonHeaderValue('egress refused: a\r\nset-cookie: x ✓\n')).toBe(
      'egress refused: a??set-cookie: x ?',
    );
    expect(egressReasonHeaderValue('x'.repeat(5_000))).toHaveLength(1_000);
  });
});
