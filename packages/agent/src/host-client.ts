import { request as httpRequest } from 'node:http';
import { errorFromBody } from '@openlegion/infra/http';
import {
  type AgentInstructions,
  type AgentSelf,
  agentInstructionsSchema,
  agentSelfSchema,
  OpenLegionError,
} from '@openlegion/protocol';
import type { z } from 'zod';

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
  /**
   * `GET /mesh/instructions`: the operator's AGENTS.md and SOUL.md as the host holds them, with
   * their ETag; `undefined` when `etag` is still current (304).
   */
  getInstructions(etag?: string): Promise<{ etag: string; instructions: AgentInstructions } | undefined>;
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

  const exchange = async (
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> => {
    for (let attempt = 0; ; attempt++) {
      const outcome = await requestOnce(options, timeoutMs, { method, path, body, headers });
      if (outcome.ok) return outcome.answer;
      const delayMs = retryDelaysMs[attempt];
      if (delayMs === undefined || !outcome.transient) throw outcome.error;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  };
  const request = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> =>
    (await exchange(method, path, body)).json;

  return {
    async getSelf() {
      return parseAnswer(agentSelfSchema, await request('GET', '/mesh/self'), 'GET /mesh/self');
    },
    async reportReady(body) {
      await request('POST', '/mesh/ready', body);
    },
    async getInstructions(etag) {
      const answer = await exchange(
        'GET',
        '/mesh/instructions',
        undefined,
        etag ? { 'if-none-match': etag } : {},
      );
      if (answer.status === 304) return undefined;
      const instructions = parseAnswer(agentInstructionsSchema, answer.json, 'GET /mesh/instructions');
      return { etag: answer.etag ?? '', instructions };
    },
  };
}

function parseAnswer<T>(schema: z.ZodType<T>, json: unknown, target: string): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') || 'body';
    throw new OpenLegionError('INTERNAL', `${target} answered an invalid ${field}`, { cause: parsed.error });
  }
  return parsed.data;
}

/** A 2xx or 304 answer. */
interface Answer {
  status: number;
  json: unknown;
  etag: string | undefined;
}

/** One attempt's outcome; `transient` failures are worth another try whatever their code. */
type Attempt = { ok: true; answer: Answer } | { ok: false; error: OpenLegionError; transient: boolean };

async function requestOnce(
  options: HostClientOptions,
  timeoutMs: number,
  call: { method: 'GET' | 'POST'; path: string; body: unknown; headers: Record<string, string> },
): Promise<Attempt> {
  const { method, path, body } = call;
  const target = `${method} ${path}`;
  let response: { status: number; text: string; etag: string | undefined };
  try {
    response = await sendRequest(`${options.meshUrl}${path}`, {
      method,
      headers: {
        ...call.headers,
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
  if ((response.status >= 200 && response.status < 300) || response.status === 304)
    return { ok: true, answer: { status: response.status, json, etag: response.etag } };
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
): Promise<{ status: number; text: string; etag: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: options.method, headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks).toString(),
          etag: response.headers.etag,
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

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
