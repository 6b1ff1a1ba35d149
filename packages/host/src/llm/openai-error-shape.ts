import { type ErrorBody, errorBodySchema } from '@openlegion/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';

/** Codes whose fault is the request's `model` field. */
const MODEL_CODES: ReadonlySet<string> = new Set([
  'LLM_MODEL_INVALID',
  'LLM_MODEL_FORBIDDEN',
  'LLM_MODEL_NOT_FOUND',
  'LLM_PROVIDER_UNKNOWN',
]);

/** What `param` is read from: the provider's own (upstream errors), or REQUEST_INVALID's issues. */
const paramSources = z.object({
  param: z.string().optional(),
  issues: z.array(z.object({ path: z.string() })).optional(),
});

/**
 * OpenAI's error `type` for an HTTP status, as its API and SDKs use them.
 *
 * @example openAiErrorType(404) // 'invalid_request_error' (OpenAI's answer to an unknown model)
 */
export function openAiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'insufficient_quota';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/**
 * The protocol error body with OpenAI's `type` and `param` beside `code` and `message`: one body
 * both the project's clients and any OpenAI client read (see docs/errors.md).
 */
export function openAiErrorBody(body: ErrorBody, status: number): ErrorBody {
  return { error: { ...body.error, type: openAiErrorType(status), param: paramOf(body.error) } };
}

/**
 * A route `onSend` hook for the `/v1` routes: an error answer (whichever handler wrote it: auth,
 * parsing, the proxy, fastify's own) leaves in the OpenAI shape, with `x-should-retry` saying
 * whether to retry (the OpenAI SDKs obey it before their own status rules). Answers below 400
 * pass untouched, unparsed.
 */
export async function withOpenAiErrorShape(
  _request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
  const body = errorBodySchema.safeParse(parseJson(payload));
  if (!body.success) return payload;
  reply.header('x-should-retry', String(body.data.error.retryable));
  return JSON.stringify(openAiErrorBody(body.data, reply.statusCode));
}

function paramOf(error: ErrorBody['error']): string | null {
  const sources = paramSources.safeParse(error.details);
  if (sources.success && sources.data.param !== undefined) return sources.data.param;
  if (MODEL_CODES.has(error.code)) return 'model';
  if (error.code === 'LLM_CONTEXT_OVERFLOW') return 'messages';
  const first = sources.success ? sources.data.issues?.[0]?.path : undefined;
  // parseRequest names fields `body.messages.0`; OpenAI's param is the field itself.
  const field = first?.startsWith('body.') ? first.slice('body.'.length) : undefined;
  return field || null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
