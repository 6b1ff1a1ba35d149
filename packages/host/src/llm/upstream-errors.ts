import { type ErrorCode, OpenLegionError } from '@openlegion/protocol';
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

/**
 * The code of a provider's 4xx that says the request itself is at fault: sent again it fails again,
 * so it reaches the client with the same status (an OpenAI client then raises BadRequestError,
 * NotFoundError, ... and does not retry). None of them fails over (as before this mapping).
 */
const REFUSAL_CODES: ReadonlyMap<number, ErrorCode> = new Map([
  [400, 'LLM_REQUEST_REJECTED'],
  [404, 'LLM_MODEL_NOT_FOUND'],
  [413, 'LLM_REQUEST_TOO_LARGE'],
  [422, 'LLM_REQUEST_UNPROCESSABLE'],
]);

/**
 * Map an upstream error response: 5xx/429 → LLM_PROVIDER_UNAVAILABLE; a context overflow →
 * LLM_CONTEXT_OVERFLOW; 400/404/413/422 → the code of that status (see docs/errors.md); any other
 * 4xx (401/403 keys, 402 billing: failover's business) → LLM_PROVIDER_ERROR.
 */
export async function upstreamFailure(
  target: ResolvedModel,
  response: FailedAnswer,
): Promise<OpenLegionError> {
  const upstream = await readUpstreamError(response);
  const upstreamMessage = redactKey(upstream.message, target.apiKey);
  const retryAfterMs = retryAfter(response.retryAfter);
  const details = {
    provider: target.provider,
    model: target.model,
    status: response.status,
    ...(retryAfterMs === undefined ? {} : { retry_after_ms: retryAfterMs }),
    ...(upstream.param === undefined ? {} : { param: redactKey(upstream.param, target.apiKey) }),
    ...(upstream.code === undefined ? {} : { provider_code: redactKey(upstream.code, target.apiKey) }),
  };
  const text = `provider "${target.provider}" answered ${response.status}: ${upstreamMessage}`;
  if (response.status >= 500 || response.status === 429) {
    return new ProviderUnavailableError(text, { details });
  }
  if ((response.status === 400 || response.status === 413) && CONTEXT_OVERFLOW.test(upstreamMessage)) {
    return new OpenLegionError('LLM_CONTEXT_OVERFLOW', text, { details });
  }
  return new OpenLegionError(REFUSAL_CODES.get(response.status) ?? 'LLM_PROVIDER_ERROR', text, { details });
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

/** What a provider's error body says: its message, and OpenAI's `param` and `code` when it gives them. */
interface UpstreamError {
  message: string;
  param?: string;
  code?: string;
}

async function readUpstreamError(response: FailedAnswer): Promise<UpstreamError> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    return { message: `(body unreadable: ${error instanceof Error ? error.message : String(error)})` };
  }
  const parsed = openAiError(text);
  return {
    ...parsed,
    message: truncate(parsed.message ?? (text.trim() || response.statusText || 'no message')),
  };
}

/** The length a provider's `param` or `code` is kept to: they are names, not prose. */
const UPSTREAM_NAME_MAX_CHARS = 100;

/** `{ error: { message, param, code } }` (OpenAI) or `{ error: "..." }` / `{ message }` (others). */
function openAiError(text: string): { message?: string; param?: string; code?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const { error, message } = parsed as { error?: unknown; message?: unknown };
  if (typeof error === 'string') return { message: error };
  if (typeof error === 'object' && error !== null) {
    const fields = error as { message?: unknown; param?: unknown; code?: unknown };
    const said = typeof fields.message === 'string' ? fields.message : message;
    return {
      ...(typeof said === 'string' ? { message: said } : {}),
      ...(typeof fields.param === 'string' ? { param: fields.param.slice(0, UPSTREAM_NAME_MAX_CHARS) } : {}),
      ...(typeof fields.code === 'string' ? { code: fields.code.slice(0, UPSTREAM_NAME_MAX_CHARS) } : {}),
    };
  }
  return typeof message === 'string' ? { message } : {};
}

function truncate(text: string): string {
  return text.length > UPSTREAM_MESSAGE_MAX_CHARS ? `${text.slice(0, UPSTREAM_MESSAGE_MAX_CHARS)}…` : text;
}

/** Some providers echo the key they were sent; it must never reach a client or a log. */
function redactKey(text: string, apiKey: string | undefined): string {
  return apiKey ? text.split(apiKey).join('[redacted]') : text;
}
