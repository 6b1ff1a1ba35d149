import { APIConnectionError, APIError } from 'openai/core/error';
import { describe, expect, it } from 'vitest';
import { describeLlmFailure, isContextOverflow, isRetryableLlmError, proxyErrorCode } from './llm-failure.js';
import { StreamBrokenAfterTextError } from './llm-stream.js';

const apiError = (status: number, code?: string) =>
  new APIError(status, { message: 'upstream says no', ...(code ? { code } : {}) }, undefined, new Headers());

describe('LLM failure classification', () => {
  it('retries 429, 5xx and transport faults, not other 4xx', () => {
    expect([
      isRetryableLlmError(apiError(429)),
      isRetryableLlmError(apiError(503)),
      isRetryableLlmError(new APIConnectionError({ message: 'refused' })),
      isRetryableLlmError(new Error('the LLM stream sent nothing for 100 ms')),
      isRetryableLlmError(apiError(400)),
      isRetryableLlmError(apiError(403)),
    ]).toEqual([true, true, true, true, false, false]);
  });

  it('never retries a stream that broke after text reached the user, but lets the client re-send it', () => {
    const broken = new StreamBrokenAfterTextError('socket hang up');
    expect([isRetryableLlmError(broken), describeLlmFailure(broken, '').retryable]).toEqual([false, true]);
  });

  it("recognises the host's LLM_CONTEXT_OVERFLOW code", () => {
    expect([
      isContextOverflow(apiError(400, 'LLM_CONTEXT_OVERFLOW')),
      isContextOverflow(apiError(400)),
    ]).toEqual([true, false]);
  });

  it("keeps the proxy's own LLM and budget codes, and no other", () => {
    expect([
      proxyErrorCode(apiError(402, 'BUDGET_EXCEEDED')),
      proxyErrorCode(apiError(429, 'LLM_CALL_LIMIT')),
      proxyErrorCode(apiError(401, 'AUTH_INVALID')),
      proxyErrorCode(apiError(400, 'context_length_exceeded')),
      proxyErrorCode(apiError(500)),
      proxyErrorCode(new Error('refused')),
    ]).toEqual(['BUDGET_EXCEEDED', 'LLM_CALL_LIMIT', undefined, undefined, undefined, undefined]);
  });

  it('scrubs the mesh token from the message', () => {
    const failure = describeLlmFailure(new Error('bad header Bearer tok-123'), 'tok-123');
    expect(failure.message).toBe('LLM call failed: bad header Bearer [redacted]');
  });
});
