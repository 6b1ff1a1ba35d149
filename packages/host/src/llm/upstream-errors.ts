import { OpenLegionError } from '@openlegion/protocol';
import type { ResolvedModel } from './model-resolver.js';

const UPSTREAM_MESSAGE_MAX_CHARS = 500;

/**
 * The provider could not be reached, timed out, or answered 5xx/429. Retryable; failover catches it.
 */
export class ProviderUnavailableError extends OpenLegionError {
  constructor(message: string, options: { cause?: unknown; details?: unknown } = {}) {
    super('LLM_PROVIDER_UNAVAILABLE', message, options);
  }
}

/** A fetch that never produced a response (DNS, refused, reset, header timeout). */
export function unreachable(target: ResolvedModel, cause: unknown): ProviderUnavailableError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ProviderUnavailableError(`provider "${target.provider}" could not be reached: ${reason}`, {
    cause,
    details: { provider: target.provider, model: target.model },
  });
}

/** Map an upstream error response: 5xx/429 → LLM_PROVIDER_UNAVAILABLE, other 4xx → LLM_PROVIDER_ERROR. */
export async function upstreamFailure(target: ResolvedModel, response: Response): Promise<OpenLegionError> {
  const upstreamMessage = redactKey(await readUpstreamMessage(response), target.apiKey);
  const details = { provider: target.provider, model: target.model, status: response.status };
  const text = `provider "${target.provider}" answered ${response.status}: ${upstreamMessage}`;
  if (response.status >= 500 || response.status === 429) {
    return new ProviderUnavailableError(text, { details });
  }
  return new OpenLegionError('LLM_PROVIDER_ERROR', text, { details });
}

async function readUpstreamMessage(response: Response): Promise<string> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    return `(body unreadable: ${error instanceof Error ? error.message : String(error)})`;
  }
  return truncate(openAiErrorMessage(text) ?? (text.trim() || response.statusText || 'no message'));
}

/** `{ error: { message } }` (OpenAI) or `{ error: "..." }` / `{ message }` (others). */
function openAiErrorMessage(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { error, message } = parsed as { error?: unknown; message?: unknown };
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null) {
    const nested = (error as { message?: unknown }).message;
    if (typeof nested === 'string') return nested;
  }
  return typeof message === 'string' ? message : undefined;
}

function truncate(text: string): string {
  return text.length > UPSTREAM_MESSAGE_MAX_CHARS ? `${text.slice(0, UPSTREAM_MESSAGE_MAX_CHARS)}…` : text;
}

/** Some providers echo the key they were sent; it must never reach a client or a log. */
function redactKey(text: string, apiKey: string | undefined): string {
  return apiKey ? text.split(apiKey).join('[redacted]') : text;
}
