import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { errorFromBody } from '@openlegion/infra/http';
import { OpenLegionError } from '@openlegion/protocol';

/** Per-call limit when the caller gives none: the host answers these from memory or its database. */
const MESH_CALL_TIMEOUT_MS = 30_000;

export interface MeshClientOptions {
  /** The host's base URL (`MESH_URL`), no trailing slash needed. */
  meshUrl: string;
  /** The agent's bearer token (`MESH_TOKEN`). */
  token: string;
  /** The trace the current turn runs under, sent as `x-trace-id` so the host links the calls. */
  traceId?: () => string | undefined;
}

export interface MeshCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The trace of the tool call making it (wins over the client's `traceId`). */
  traceId?: string | undefined;
}

/** The tools' calls to the host's `/mesh/*` routes with the agent's token. */
export interface MeshClient {
  /**
   * One call; the parsed JSON answer on 2xx.
   * @throws {OpenLegionError} the host's own error (`MESH_FORBIDDEN`, `MESH_KEY_NOT_FOUND`, ...), or
   * `MESH_NOT_RUNNING` when the host cannot be reached or does not answer in time.
   */
  call(call: MeshCall): Promise<unknown>;
}

/** A {@link MeshClient} over node:http(s): no retries, since tool calls are the model's to repeat. */
export function createMeshClient(options: MeshClientOptions): MeshClient {
  const base = options.meshUrl.replace(/\/+$/, '');
  return {
    async call({ method, path, body, signal, timeoutMs = MESH_CALL_TIMEOUT_MS, traceId: callTrace }) {
      const target = `${method} ${path}`;
      const traceId = callTrace ?? options.traceId?.();
      const headers: Record<string, string> = {
        authorization: `Bearer ${options.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(traceId ? { 'x-trace-id': traceId } : {}),
      };
      let answer: { status: number; text: string };
      try {
        answer = await send(
          `${base}${path}`,
          method,
          headers,
          body === undefined ? undefined : JSON.stringify(body),
          timeoutMs,
          signal,
        );
      } catch (error) {
        if (signal?.aborted) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        throw new OpenLegionError('MESH_NOT_RUNNING', `${target}: host unreachable (${reason})`, {
          cause: error,
        });
      }
      if (answer.status >= 200 && answer.status < 300)
        return answer.text === '' ? undefined : parseJson(answer.text);
      throw errorFromBody(
        answer.status,
        answer.text,
        (status, text) => new OpenLegionError('INTERNAL', `${target}: ${status} ${text.slice(0, 200)}`),
      );
    },
  };
}

function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<{ status: number; text: string }> {
  const requestFn = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = requestFn(url, { method, headers, ...(signal ? { signal } : {}) }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
      );
      response.on('error', reject);
    });
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    request.on('error', reject);
    request.end(body);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new OpenLegionError(
      'INTERNAL',
      `the host answered something that is not JSON: ${text.slice(0, 100)}`,
    );
  }
}
