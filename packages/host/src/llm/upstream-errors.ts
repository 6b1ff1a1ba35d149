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

/** A call that never produced a response (DNS, refused, reset, header timeout, a redirect). */
export function unreachable(target: ResolvedModel, cause: unknown): ProviderUnavailableError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ProviderUnavailableError(`provider "${target.provider}" could not be reached: ${reason}`, {
    cause,
    details: { provider: target.provider, model: target.model },
  });
}

/** What an error answer is read from: its status, its Retry-After, its body as text. */
export interface FailedAnswer {
  status: number;
  statusText: string;
  retryAfter: string | null;
  text(): Promise<string>;
}

/** Map an upstream error response: 5xx/429 → LLM_PROVIDER_UNAVAILABLE, other 4xx → LLM_PROVIDER_ERROR. */
export async function upstreamFailure(
  target: ResolvedModel,
  response: FailedAnswer,
): Promise<OpenLegionError> {
  const upstreamMessage = redactKey(await readUpstreamMessage(response), target.apiKey);
  const retryAfterMs = retryAfter(response.retryAfter);
  const details = {
    provider: target.provider,
    model: target.model,
    status: response.status,
    ...(retryAfterMs === undefined ? {} : { retry_after_ms: retryAfterMs }),
  };
  const text = `provider "${target.provider}" answered ${response.status}: ${upstreamMessage}`;
  if (response.status >= 500 || response.status === 429) {
    return new ProviderUnavailableError(text, { details });
  }
  if ((response.status === 400 || response.status === 413) && CONTEXT_OVERFLOW.test(upstreamMessage)) {
    return new OpenLegionError('LLM_CONTEXT_OVERFLOW', text, { details });
  }
  return new OpenLegionError('LLM_PROVIDER_ERROR', text, { details });
}

/** How providers word a prompt longer than the context window. */
const CONTEXT_OVERFLOW =
  /context[_ ]length|context window|maximum context|too many tokens|prompt is too long|input is too long|exceeds the (?:model's )?(?:context|maximum)/i;

/** `Retry-After` in seconds or as an HTTP date, in ms from now. */
function retryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

async function readUpstreamMessage(response: FailedAnswer): Promise<string> {
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
