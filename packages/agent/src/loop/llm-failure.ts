import { type ErrorCode, keepsMeaningInTurn } from '@openlegion/protocol';
import { APIError } from 'openai/core/error';
import { StreamBrokenAfterTextError } from './llm-stream.js';

/** The host's code for a prompt longer than the model's window. */
const CONTEXT_OVERFLOW_CODE = 'LLM_CONTEXT_OVERFLOW';

/** True when the host refused the prompt as longer than the model's window. */
export function isContextOverflow(error: unknown): boolean {
  return error instanceof APIError && error.code === CONTEXT_OVERFLOW_CODE;
}

/**
 * Whether another attempt may succeed: 429 and 5xx answers, and transport faults (refused, timed
 * out, cut off, stalled) before any text reached the user.
 */
export function isRetryableLlmError(error: unknown): boolean {
  if (error instanceof StreamBrokenAfterTextError) return false;
  const status = error instanceof APIError ? error.status : undefined;
  return status === undefined || status === 429 || status >= 500;
}

/**
 * The LLM proxy's own code for a failed call (`BUDGET_EXCEEDED`, `LLM_MODEL_FORBIDDEN`,
 * `LLM_CONTEXT_OVERFLOW`, `LLM_CALL_LIMIT`, ...), which the turn's error keeps so the operator
 * sees it as itself; undefined for any other failure (the turn then says `AGENT_LLM_FAILED`).
 */
export function proxyErrorCode(error: unknown): ErrorCode | undefined {
  return error instanceof APIError && keepsMeaningInTurn(error.code) ? error.code : undefined;
}

/**
 * Upstream status and message for the client. Retryable as {@link isRetryableLlmError} says, except
 * that a stream broken after its first text is retryable for the client (it may re-send the turn).
 */
export function describeLlmFailure(error: unknown, token: string): { message: string; retryable: boolean } {
  const reason = error instanceof Error ? error.message : String(error);
  // The SDK's message already starts with the status ("500 ..."); the token is scrubbed in case a
  // misbehaving upstream echoed the request's headers.
  const raw = `LLM call failed: ${reason}`;
  const message = token === '' ? raw : raw.replaceAll(token, '[redacted]');
  const retryable = error instanceof StreamBrokenAfterTextError || isRetryableLlmError(error);
  return { message, retryable };
}
