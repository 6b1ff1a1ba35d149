import { describe, expect, it } from 'vitest';
import { braveAdapter } from './brave-adapter.js';
import { providerFailureOf } from './provider-status.js';
import { searxngAdapter } from './searxng-adapter.js';
import { tavilyAdapter } from './tavily-adapter.js';

const KEY = 'BSA-secret-key';
const scrub = (text: string) => text.split(KEY).join('[redacted]');
const answer = (status: number, text = '', retryAfter: string | null = null) => ({
  status,
  text,
  retryAfter,
});

describe('providerFailureOf', () => {
  it('reads a 2xx as no failure', () => {
    expect(providerFailureOf(braveAdapter, answer(200, '{}'), scrub)).toBeUndefined();
  });

  it.each([
    [braveAdapter, answer(401, 'no'), 'auth', 'refused its key (401: no)'],
    [
      braveAdapter,
      answer(422, '{"error":{"code":"SUBSCRIPTION_TOKEN_INVALID"}}'),
      'auth',
      'refused its key (422 SUBSCRIPTION_TOKEN_INVALID)',
    ],
    [
      braveAdapter,
      answer(422, '{"error":{"code":"VALIDATION"}}'),
      'request',
      'answered 422: {"error":{"code":"VALIDATION"}}',
    ],
    [tavilyAdapter, answer(432, ''), 'billing', "answered 432: the plan's request limit is reached"],
    [tavilyAdapter, answer(402, ''), 'billing', 'answered 402 (payment required)'],
    [
      searxngAdapter,
      answer(403, '<h1>Forbidden</h1>'),
      'auth',
      expect.stringContaining('add json under search.formats'),
    ],
    [searxngAdapter, answer(502, 'Bad  \n Gateway'), 'server', 'answered 502: Bad Gateway'],
    [searxngAdapter, answer(404, ''), 'request', 'answered 404'],
  ] as const)('classifies the answer (%#)', (adapter, given, failure, reason) => {
    const result = providerFailureOf(adapter, given, scrub);
    expect({ failure: result?.failure, reason: result?.message }).toEqual({ failure, reason });
  });

  it('takes a 429 cooldown from Retry-After', () => {
    expect(providerFailureOf(braveAdapter, answer(429, '', '12'), scrub)?.retryAfterMs).toBe(12_000);
    expect(providerFailureOf(braveAdapter, answer(429, '', 'soon'), scrub)?.retryAfterMs).toBeUndefined();
  });

  it('never repeats a key the provider echoes', () => {
    const failure = providerFailureOf(braveAdapter, answer(500, `token ${KEY} is broken`), scrub);
    expect(failure?.message).toBe('answered 500: token [redacted] is broken');
  });
});
