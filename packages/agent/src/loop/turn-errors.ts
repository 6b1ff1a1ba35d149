import { type ChatEvent, isOpenLegionError, OpenLegionError } from '@openlegion/protocol';
import { describeLlmFailure, proxyErrorCode } from './llm-failure.js';
import { LlmCallFailedError } from './model-call.js';

/** `AGENT_LLM_FAILED` with the retryability of the failure behind it (a 4xx from the proxy is not). */
class LlmTurnError extends OpenLegionError {
  override readonly retryable: boolean;
  constructor(message: string, retryable: boolean, cause: unknown) {
    super('AGENT_LLM_FAILED', message, { cause });
    this.retryable = retryable;
  }
}

/**
 * A failed turn as the client sees it: loop errors keep their code; an LLM failure keeps the
 * proxy's own code (`BUDGET_EXCEEDED`, `LLM_MODEL_FORBIDDEN`, ...: see `keepsMeaningInTurn`) or
 * else becomes `AGENT_LLM_FAILED`, with the proxy token scrubbed from the message; anything else
 * is a crash, thrown on for the server to report as INTERNAL.
 */
export function toTurnError(error: unknown, token: string): OpenLegionError {
  if (isOpenLegionError(error)) return error;
  if (!(error instanceof LlmCallFailedError)) throw error;
  const { message, retryable } = describeLlmFailure(error.cause, token);
  const code = proxyErrorCode(error.cause);
  if (code) return new OpenLegionError(code, message, { cause: error });
  return new LlmTurnError(message, retryable, error);
}

/** The `error` event of a failed turn. */
export function errorEvent(error: OpenLegionError): ChatEvent {
  return { type: 'error', code: error.code, message: error.message, retryable: error.retryable };
}
