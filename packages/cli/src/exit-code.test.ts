import { chatEventError, OpenLegionError } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { EXIT_FAILED, EXIT_TRY_AGAIN, exitCodeOf } from './exit-code.js';

describe('exitCodeOf', () => {
  it('exits 75 for what may succeed later and 1 for what will not', () => {
    expect([
      exitCodeOf(new OpenLegionError('AGENT_NOT_READY', 'booting')),
      exitCodeOf(new OpenLegionError('BUDGET_EXCEEDED', 'over budget')),
      exitCodeOf(new OpenLegionError('LLM_MODEL_FORBIDDEN', 'not yours')),
      exitCodeOf(new Error('a crash')),
    ]).toEqual([EXIT_TRY_AGAIN, EXIT_FAILED, EXIT_FAILED, EXIT_FAILED]);
  });

  it("maps a chat's error event by its code, not by the retryable flag the agent sent", () => {
    const event = {
      type: 'error',
      code: 'BUDGET_EXCEEDED',
      message: 'over budget',
      retryable: true,
    } as const;
    expect(exitCodeOf(chatEventError(event))).toBe(EXIT_FAILED);
  });
});
