import type OpenAI from 'openai';

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
}): Promise<OpenAI> {
  const { default: OpenAISdk } = await import('openai');
  return new OpenAISdk({
    baseURL: `${options.meshUrl}/v1`,
    apiKey: options.token,
    maxRetries: 0,
    timeout: options.timeoutMs ?? LLM_TIMEOUT_MS,
  });
}
