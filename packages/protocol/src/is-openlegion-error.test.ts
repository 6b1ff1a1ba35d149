import { describe, expect, it } from 'vitest';
import { isOpenLegionError, OPENLEGION_ERROR_BRAND, OpenLegionError } from './errors.js';

/** What another copy of the package makes: its own class, the same global brand. */
function errorFromAnotherCopy(code: string): Error {
  class CopiedError extends Error {
    readonly code = code;
    get [Symbol.for('openlegion.error')](): true {
      return true;
    }
  }
  return new CopiedError('from another bundle');
}

describe('isOpenLegionError', () => {
  it('recognises an OpenLegionError and its subclasses', () => {
    class ProviderUnavailableError extends OpenLegionError {}
    expect(isOpenLegionError(new OpenLegionError('AGENT_UNKNOWN', 'x'))).toBe(true);
    expect(isOpenLegionError(new ProviderUnavailableError('LLM_PROVIDER_UNAVAILABLE', 'x'))).toBe(true);
  });

  it('recognises an error made by another copy of the package, where instanceof is false', () => {
    const copied = errorFromAnotherCopy('MESH_NOT_RUNNING');
    expect(copied instanceof OpenLegionError).toBe(false);
    expect(isOpenLegionError(copied)).toBe(true);
  });

  it('refuses a branded error whose code this copy does not know', () => {
    expect(isOpenLegionError(errorFromAnotherCopy('SOME_FUTURE_CODE'))).toBe(false);
  });

  it('refuses a plain error with a known code and values that are not objects', () => {
    expect(isOpenLegionError(Object.assign(new Error('x'), { code: 'AGENT_UNKNOWN' }))).toBe(false);
    expect(isOpenLegionError({ code: 'AGENT_UNKNOWN' })).toBe(false);
    expect(isOpenLegionError(undefined)).toBe(false);
    expect(isOpenLegionError('AGENT_UNKNOWN')).toBe(false);
  });

  it('keeps the brand off the instance, so logs and deep equality do not see it', () => {
    const error = new OpenLegionError('AGENT_UNKNOWN', 'x');
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
    expect(error[OPENLEGION_ERROR_BRAND]).toBe(true);
  });
});
