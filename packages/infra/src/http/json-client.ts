import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { OpenLegionError } from '@openlegion/protocol';
import type { z } from 'zod';
import { errorFromBody } from './error-from-body.js';

/** Per-request limit when neither the client nor the call gives one. */
const DEFAULT_TIMEOUT_MS = 30_000;

export interface JsonClientOptions {
  /** Where the routes live, e.g. `http://127.0.0.1:7700` (a trailing slash is dropped). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>` on every request. */
  token: string;
  /** Limit of one request without an answer (socket idle time; 0: none), unless the call gives its own. */
  timeoutMs?: number;
  /**
   * The error for a server that cannot be reached or does not answer in time. Default:
   * `MESH_NOT_RUNNING` "`GET /x: host unreachable (reason)`".
   */
  unreachable?: (target: string, cause: unknown) => OpenLegionError;
  /** Goes before the message of an error the server answered, e.g. `${target}: ${status} `. */
  errorPrefix?: (target: string, status: number) => string;
}

export interface JsonRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The route with its query, e.g. `/api/traces?limit=20`. */
  path: string;
  /** Sent as JSON when present. */
  body?: unknown;
  headers?: Record<string, string | undefined>;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A 2xx or 304 answer; `json` is undefined for an empty body (204, 304). */
export interface JsonAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  json: unknown;
}

/** A schema an answer is parsed with (a protocol `...AnswerSchema`). */
export type AnswerSchema<T> = z.ZodType<T>;

/** JSON over HTTP with a bearer token, answers checked against a protocol schema. */
export interface JsonClient {
  /**
   * One request; the answer of a 2xx or 304, unparsed (for routes that answer 304 or whose headers
   * matter). Every other status throws the error its body carries.
   */
  send(request: JsonRequest): Promise<JsonAnswer>;
  /** One request whose 2xx answer must match `schema`; the parsed answer. */
  call<T>(request: JsonRequest, schema: AnswerSchema<T>): Promise<T>;
}

/**
 * A {@link JsonClient} over node:http(s). Not `fetch`: loading undici costs an agent tens of ms of
 * CPU at boot, when a fleet of agents starts at once on a few cores. No retries here: the caller
 * knows which calls may be repeated (see `retry` in `@openlegion/infra/clock`).
 *
 * @throws {OpenLegionError} the code of the server's error body (`AUTH_INVALID`, ...); `INTERNAL`
 * for an error answer that has none, an answer that is not JSON, or one the schema refuses (the
 * message names the field); `unreachable(...)` when the server cannot be reached. An aborted call
 * rejects with the signal's reason.
 */
export function createJsonClient(options: JsonClientOptions): JsonClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const unreachable = options.unreachable ?? defaultUnreachable;
  const send = async (call: JsonRequest): Promise<JsonAnswer> => {
    const target = `${call.method} ${call.path}`;
    let answer: RawAnswer;
    try {
      answer = await exchange(`${base}${call.path}`, {
        method: call.method,
        headers: requestHeaders(options.token, call),
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        timeoutMs: call.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        signal: call.signal,
      });
    } catch (cause) {
      if (call.signal?.aborted) throw call.signal.reason;
      throw unreachable(target, cause);
    }
    const { status, text, headers } = answer;
    if ((status >= 200 && status < 300) || status === 304)
      return { status, headers, json: text === '' ? undefined : parseJson(text, target) };
    throw errorFromBody(
      status,
      text,
      () => new OpenLegionError('INTERNAL', `${target}: ${status} ${text.slice(0, 200)}`),
      options.errorPrefix?.(target, status) ?? '',
    );
  };
  return {
    send,
    async call(call, schema) {
      return parseAnswer(schema, (await send(call)).json, `${call.method} ${call.path}`);
    },
  };
}

/**
 * `json` checked against `schema`, or `INTERNAL` naming the first field that is wrong: an answer
 * the caller cannot read is a fault of the server (or of a version mismatch), not of the user.
 */
export function parseAnswer<T>(schema: z.ZodType<T>, json: unknown, target: string): T {
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const field = parsed.error.issues[0]?.path.join('.') || 'body';
  throw new OpenLegionError('INTERNAL', `${target} answered an invalid ${field}`, { cause: parsed.error });
}

function defaultUnreachable(target: string, cause: unknown): OpenLegionError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new OpenLegionError('MESH_NOT_RUNNING', `${target}: host unreachable (${reason})`, { cause });
}

function requestHeaders(token: string, call: JsonRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers ?? {}))
    if (value !== undefined && value !== '') headers[name] = value;
  headers.authorization = `Bearer ${token}`;
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  return headers;
}

function parseJson(text: string, target: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new OpenLegionError(
      'INTERNAL',
      `${target} answered something that is not JSON: ${text.slice(0, 100)}`,
      {
        cause,
      },
    );
  }
}

interface RawAnswer {
  status: number;
  text: string;
  headers: IncomingHttpHeaders;
}

function exchange(
  url: string,
  options: {
    method: string;
    headers: Record<string, string>;
    body: string | undefined;
    timeoutMs: number;
    signal: AbortSignal | undefined;
  },
): Promise<RawAnswer> {
  const requestFn = url.startsWith('https:') ? httpsRequest : httpRequest;
  const { method, headers, signal } = options;
  return new Promise((resolve, reject) => {
    const request = requestFn(url, { method, headers, ...(signal ? { signal } : {}) }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks).toString(),
          headers: response.headers,
        }),
      );
      response.on('error', reject);
    });
    request.setTimeout(options.timeoutMs, () =>
      request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)),
    );
    request.on('error', reject);
    request.end(options.body);
  });
}
