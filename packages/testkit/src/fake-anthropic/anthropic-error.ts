import type { ServerResponse } from 'node:http';
import { sendJson } from '../fake-llm/openai-error.js';

/** The Anthropic error `type` that goes with an HTTP status. */
export function anthropicErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'billing_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** Answers with an Anthropic error body: `{ type: 'error', error: { type, message } }`. */
export function sendAnthropicError(
  res: ServerResponse,
  status: number,
  message: string,
  type = anthropicErrorType(status),
): void {
  sendJson(res, status, { type: 'error', error: { type, message } });
}
