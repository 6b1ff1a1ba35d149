import type { ServerResponse } from 'node:http';

/** The body of an OpenAI API error: `{ error: { message, type, param, code } }`. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** The OpenAI error `type` that goes with an HTTP status. */
export function errorTypeForStatus(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Answers with an OpenAI-shaped error body. */
export function sendOpenAiError(
  res: ServerResponse,
  status: number,
  error: { message: string; type?: string; code?: string | null },
): void {
  const body: OpenAiErrorBody = {
    error: {
      message: error.message,
      type: error.type ?? errorTypeForStatus(status),
      param: null,
      code: error.code ?? null,
    },
  };
  sendJson(res, status, body);
}
