import { errorBody } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { openAiErrorBody, openAiErrorType } from './openai-error-shape.js';

describe('the OpenAI error shape of /v1 answers', () => {
  it("gives OpenAI's type by status", () => {
    expect([400, 401, 402, 403, 404, 413, 422, 429, 502, 503].map(openAiErrorType)).toEqual([
      'invalid_request_error',
      'authentication_error',
      'insufficient_quota',
      'permission_error',
      'invalid_request_error',
      'invalid_request_error',
      'invalid_request_error',
      'rate_limit_error',
      'server_error',
      'server_error',
    ]);
  });

  it("names the field at fault: the provider's param, the model, the messages, the first invalid field", () => {
    const param = (body: ReturnType<typeof errorBody>) => openAiErrorBody(body, 400).error.param;
    expect([
      param(errorBody('LLM_REQUEST_REJECTED', 'no', { provider: 'up', status: 400, param: 'temperature' })),
      param(errorBody('LLM_MODEL_FORBIDDEN', 'not yours')),
      param(errorBody('LLM_CONTEXT_OVERFLOW', 'too long')),
      param(errorBody('REQUEST_INVALID', 'bad', { issues: [{ path: 'body.messages', message: 'empty' }] })),
      param(errorBody('REQUEST_INVALID', 'bad', { issues: [{ path: 'body', message: 'not an object' }] })),
      param(errorBody('LLM_REQUEST_REJECTED', 'no', { provider: 'up', status: 400 })),
    ]).toEqual(['temperature', 'model', 'messages', 'messages', null, null]);
  });

  it("keeps the project's fields beside OpenAI's", () => {
    expect(openAiErrorBody(errorBody('BUDGET_EXCEEDED', 'over', { budget: 'daily' }), 402)).toEqual({
      error: {
        code: 'BUDGET_EXCEEDED',
        message: 'over',
        retryable: false,
        details: { budget: 'daily' },
        type: 'insufficient_quota',
        param: null,
      },
    });
  });
});
