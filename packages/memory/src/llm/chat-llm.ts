import { OpenLegionError } from '@openlegion/protocol';
import { z } from 'zod';

const DEFAULT_TIMEOUT_MS = 60_000;

/** The one LLM call memory needs: a system and a user message in, the answer's text out. */
export interface ChatLlm {
  readonly model: string;
  complete(request: { system: string; user: string; signal?: AbortSignal }): Promise<string>;
}

export interface OpenAiChatLlmOptions {
  /** Base URL ending in `/v1` (the host's proxy: `MESH_URL + '/v1'`). */
  baseUrl: string;
  token: string;
  /** Memory's work is cheap: the `fast` tier by default. */
  model?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const completionResponse = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
});

/**
 * A {@link ChatLlm} over an OpenAI-compatible `POST /chat/completions` (non-streaming, temperature 0).
 *
 * @throws {OpenLegionError} `AGENT_LLM_FAILED` when the call fails; callers fall back to heuristics.
 */
export function createOpenAiChatLlm(options: OpenAiChatLlmOptions): ChatLlm {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const model = options.model ?? 'fast';
  const doFetch = options.fetch ?? fetch;
  return {
    model,
    async complete({ system, user, signal }) {
      const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      let response: Response;
      try {
        response = await doFetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${options.token}` },
          body: JSON.stringify({
            model,
            temperature: 0,
            messages: [
              { role: 'system', content: system },
              { role: 'user', content: user },
            ],
          }),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (error) {
        throw failed(`cannot reach ${url}: ${error instanceof Error ? error.message : String(error)}`, error);
      }
      if (!response.ok) throw failed(`${url} answered ${response.status}`);
      const parsed = completionResponse.safeParse(await response.json().catch(() => undefined));
      if (!parsed.success) throw failed(`${url} did not answer with a chat completion`);
      return parsed.data.choices[0]?.message.content ?? '';
    },
  };
}

function failed(message: string, cause?: unknown): OpenLegionError {
  return new OpenLegionError('AGENT_LLM_FAILED', message, { cause });
}

/**
 * The first JSON object in an LLM answer, tolerating code fences and prose around it.
 * Returns undefined when there is none.
 */
export function extractJsonObject(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}
