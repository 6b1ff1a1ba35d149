import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  errorBodySchema,
  keepsMeaningInTurn,
  OpenLegionError,
  turnErrorCode,
} from './errors.js';

describe('OpenLegionError', () => {
  it('serialises to the protocol error body', () => {
    const error = new OpenLegionError('AGENT_UNKNOWN', 'no agent "x"', { details: { agents: ['a'] } });
    const body = error.toJSON();
    expect(errorBodySchema.parse(body)).toEqual({
      error: { code: 'AGENT_UNKNOWN', message: 'no agent "x"', retryable: false, details: { agents: ['a'] } },
    });
    expect(error.status).toBe(404);
  });

  it('takes retryable from the code and keeps the cause', () => {
    const cause = new Error('ECONNREFUSED');
    const error = new OpenLegionError('LLM_PROVIDER_UNAVAILABLE', 'provider down', { cause });
    expect(error.retryable).toBe(true);
    expect(error.cause).toBe(cause);
    expect(error.name).toBe('OpenLegionError');
  });

  it('names subclasses after themselves', () => {
    class ProviderUnavailableError extends OpenLegionError {}
    expect(new ProviderUnavailableError('LLM_PROVIDER_UNAVAILABLE', 'x').name).toBe(
      'ProviderUnavailableError',
    );
  });
});

describe('errors under an agent turn', () => {
  it('keeps a catalogue code of a chat error event and makes anything else AGENT_LLM_FAILED', () => {
    expect(['BUDGET_EXCEEDED', 'MADE_UP', 'toString', 'AUTH_INVALID'].map(turnErrorCode)).toEqual([
      'BUDGET_EXCEEDED',
      'AGENT_LLM_FAILED',
      'AGENT_LLM_FAILED',
      'AGENT_LLM_FAILED',
    ]);
  });

  it("keeps only the LLM proxy's own LLM_* and BUDGET_* codes of a failed LLM call", () => {
    expect(
      [
        'BUDGET_EXCEEDED',
        'LLM_CALL_LIMIT',
        'LLM_MODEL_FORBIDDEN',
        'AUTH_INVALID',
        'REQUEST_INVALID',
        'LLM_NOPE',
        null,
      ].map(keepsMeaningInTurn),
    ).toEqual([true, true, true, false, false, false, false]);
  });
});

describe('docs/errors.md', () => {
  const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

  it.each(Object.entries(ERROR_CODES))(
    'documents %s with its HTTP status and retryable flag',
    (code, entry) => {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
      expect(row, `docs/errors.md has no row for ${code}`).toBeDefined();
      const [, status, retryable] = (row ?? '')
        .split('|')
        .map((cell) => cell.trim())
        .slice(1);
      expect(Number(status)).toBe(entry.status);
      expect(retryable).toBe(entry.retryable ? 'yes' : 'no');
    },
  );

  it('documents no code that does not exist', () => {
    const documented = [...doc.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]);
    expect(documented.filter((code) => !(code && code in ERROR_CODES))).toEqual([]);
  });
});
