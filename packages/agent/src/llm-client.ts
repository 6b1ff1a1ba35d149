import { TRACE_HEADER, TRACEPARENT_HEADER } from '@openlegion/protocol';
import type OpenAI from 'openai';
import type { TraceParents } from './trace-parents.js';

/** Time to the first byte of an answer; the host proxy may queue behind a slow provider. */
const LLM_TIMEOUT_MS = 120_000;

/**
 * The OpenAI SDK pointed at the host's LLM proxy: the agent authenticates with its mesh token and
 * never sees a provider key. No SDK retries: the agent loop retries with its own backoff (on a clock
 * tests can fake), and the host does provider failover.
 *
 * The SDK is imported on demand: it is the heaviest module the agent loads, and the first chat comes
 * after `POST /mesh/ready`, so loading it later keeps startup short.
 */
export async function loadLlmClient(options: {
  meshUrl: string;
  token: string;
  timeoutMs?: number;
  /** Each call made under a turn's trace carries the turn's `traceparent`. */
  traceParents?: TraceParents;
}): Promise<OpenAI> {
  const { default: OpenAISdk } = await import('openai');
  const { traceParents } = options;
  return new OpenAISdk({
    baseURL: `${options.meshUrl}/v1`,
    apiKey: options.token,
    maxRetries: 0,
    timeout: options.timeoutMs ?? LLM_TIMEOUT_MS,
    ...(traceParents ? { fetch: withTraceparent(traceParents) } : {}),
  });
}

/** `fetch` that adds the turn's `traceparent` to a call carrying the turn's trace id. */
function withTraceparent(traceParents: TraceParents): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    const traceparent = traceParents.of(headers.get(TRACE_HEADER) ?? undefined);
    if (!traceparent) return fetch(input, init);
    headers.set(TRACEPARENT_HEADER, traceparent);
    return fetch(input, { ...init, headers });
  };
}
