import { backoffFrom, retry } from '@openlegion/infra/clock';
import { createJsonClient, type JsonAnswer, type JsonRequest, parseAnswer } from '@openlegion/infra/http';
import {
  type AgentInstructions,
  type AgentSelf,
  agentInstructionsSchema,
  agentSelfSchema,
  isOpenLegionError,
} from '@openlegion/protocol';

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
 * A {@link HostClient} over infra's JSON client. Network failures, timeouts, 429 and 5xx are retried
 * after each of `retryDelaysMs`; any other answer fails at once.
 *
 * @throws {OpenLegionError} `MESH_NOT_RUNNING` when the host cannot be reached, else the code of the
 * host's error body (`AUTH_INVALID`, ...) or `INTERNAL` for an answer the agent cannot read.
 */
export function createHostClient(options: HostClientOptions): HostClient {
  const retryDelaysMs = options.retryDelaysMs ?? HOST_RETRY_DELAYS_MS;
  const client = createJsonClient({
    baseUrl: options.meshUrl,
    token: options.token,
    timeoutMs: options.timeoutMs ?? HOST_REQUEST_TIMEOUT_MS,
    errorPrefix: (target, status) => `${target}: ${status} `,
  });
  const send = (request: JsonRequest): Promise<JsonAnswer> =>
    retry(() => client.send(request), {
      attempts: retryDelaysMs.length + 1,
      backoffMs: backoffFrom(retryDelaysMs),
      retryable: isTransient,
    });

  return {
    async getSelf() {
      const answer = await send({ method: 'GET', path: '/mesh/self' });
      return parseAnswer(agentSelfSchema, answer.json, 'GET /mesh/self');
    },
    async reportReady(body) {
      await send({ method: 'POST', path: '/mesh/ready', body });
    },
    async getInstructions(etag) {
      const answer = await send({
        method: 'GET',
        path: '/mesh/instructions',
        headers: { 'if-none-match': etag },
      });
      if (answer.status === 304) return undefined;
      const instructions = parseAnswer(agentInstructionsSchema, answer.json, 'GET /mesh/instructions');
      return { etag: answer.headers.etag ?? '', instructions };
    },
  };
}

/**
 * Worth another try whatever the code: the host unreachable or slow (`MESH_NOT_RUNNING`), busy (429)
 * or failing (5xx, also an answer with no error body, which comes back as `INTERNAL`).
 */
function isTransient(error: unknown): boolean {
  if (!isOpenLegionError(error)) return false;
  return error.code === 'MESH_NOT_RUNNING' || error.status === 429 || error.status >= 500;
}
