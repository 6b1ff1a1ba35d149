import { request as httpRequest } from 'node:http';
import { errorFromBody } from '@openlegion/infra/http';
import { type AgentSelf, agentSelfSchema, OpenLegionError } from '@openlegion/protocol';

/**
 * Per-attempt limit. The host answers from memory, but during a fleet start it may still be loading
 * its server (requests wait for it) while every agent boots on the same few cores.
 */
const HOST_REQUEST_TIMEOUT_MS = 5_000;
/** Waits between attempts (~10 s in all): the host may be busy starting other agents. */
const HOST_RETRY_DELAYS_MS: readonly number[] = [100, 300, 1_000, 2_000, 3_000, 3_000];

/** The agent's calls to its host (`/mesh/*`), authenticated with the agent's bearer token. */
export interface HostClient {
  /** `GET /mesh/self`: who this agent is (name, mesh, role, model, soul). */
  getSelf(): Promise<AgentSelf>;
  /** `POST /mesh/ready`: tell the host the agent listens and may get chats. */
  reportReady(body: { url?: string; version: string }): Promise<void>;
}

export interface HostClientOptions {
  meshUrl: string;
  token: string;
  timeoutMs?: number;
  retryDelaysMs?: readonly number[];
}

/**
 * A {@link HostClient} over node:http. Network failures, timeouts, 429 and 5xx are retried after each of
 * `retryDelaysMs`; any other answer fails at once.
 *
 * @throws {OpenLegionError} `MESH_NOT_RUNNING` when the host cannot be reached, else the code of the
 * host's error body (`AUTH_INVALID`, ...) or `INTERNAL` for an answer the agent cannot read.
 */
export function createHostClient(options: HostClientOptions): HostClient {
  const timeoutMs = options.timeoutMs ?? HOST_REQUEST_TIMEOUT_MS;
  const retryDelaysMs = options.retryDelaysMs ?? HOST_RETRY_DELAYS_MS;

  const request = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> => {
    for (let attempt = 0; ; attempt++) {
      const outcome = await requestOnce(options, timeoutMs, method, path, body);
      if (outcome.ok) return outcome.json;
      const delayMs = retryDelaysMs[attempt];
      if (delayMs === undefined || !outcome.transient) throw outcome.error;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  };

  return {
    async getSelf() {
      const parsed = agentSelfSchema.safeParse(await request('GET', '/mesh/self'));
      if (!parsed.success) {
        const field = parsed.error.issues[0]?.path.join('.') || 'body';
        throw new OpenLegionError('INTERNAL', `GET /mesh/self answered an invalid ${field}`, {
          cause: parsed.error,
        });
      }
      return parsed.data;
    },
    async reportReady(body) {
      await request('POST', '/mesh/ready', body);
    },
  };
}

/** One attempt's outcome; `transient` failures are worth another try whatever their code. */
type Attempt = { ok: true; json: unknown } | { ok: false; error: OpenLegionError; transient: boolean };

async function requestOnce(
  options: HostClientOptions,
  timeoutMs: number,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
): Promise<Attempt> {
  const target = `${method} ${path}`;
  let response: { status: number; text: string };
  try {
    response = await sendRequest(`${options.meshUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const message = `${target}: host unreachable (${reason})`;
    return {
      ok: false,
      error: new OpenLegionError('MESH_NOT_RUNNING', message, { cause: error }),
      transient: true,
    };
  }
  const { text } = response;
  const json = parseJson(text);
  if (response.status >= 200 && response.status < 300) return { ok: true, json };
  const transient = response.status === 429 || response.status >= 500;
  const error = errorFromBody(
    response.status,
    text,
    (status) => new OpenLegionError('INTERNAL', `${target}: ${status} ${text.slice(0, 200)}`),
    `${target}: ${response.status} `,
  );
  return { ok: false, error, transient };
}

/**
 * One HTTP request with node:http. Not `fetch`: loading undici costs every agent tens of ms of CPU
 * at boot, when a fleet of agents starts at once on a few cores.
 */
function sendRequest(
  url: string,
  options: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number },
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: options.method, headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
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

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
