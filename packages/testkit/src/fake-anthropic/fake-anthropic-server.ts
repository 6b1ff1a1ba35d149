import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ChatScriptState } from '../fake-llm/chat-completions-route.js';
import { sendJson } from '../fake-llm/openai-error.js';
import type { RecordedRequest } from '../fake-llm/recorded-request.js';
import { readJsonBody } from '../fake-llm/request-body.js';
import { type FakeLlmScript, type FakeLlmScriptInput, parseFakeLlmScript } from '../fake-llm/script.js';
import { closeOnce, listenOnLoopback, recordExchange } from '../loopback-server.js';
import { sendAnthropicError } from './anthropic-error.js';
import { handleMessages } from './messages-route.js';

/** Options of {@link startFakeAnthropic}. */
export interface FakeAnthropicOptions {
  /** The same script format as the fake LLM's (rules match the request seen as OpenAI messages). */
  script: FakeLlmScriptInput | FakeLlmScript | string;
  /** The `x-api-key` values accepted; any non-empty key when absent. */
  apiKeys?: readonly string[];
  port?: number;
  /** Interface to bind; defaults to 127.0.0.1. */
  host?: string;
  now?: () => number;
}

/** A running fake Anthropic Messages API. */
export interface FakeAnthropic {
  /** Base URL including `/v1` (the provider's `base_url`). */
  url: string;
  port: number;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  close(): Promise<void>;
  /** Forgets recorded requests and rule use counts, keeping the server up. */
  reset(): void;
}

/**
 * Starts a scripted server that speaks the Anthropic Messages API on loopback: `POST /v1/messages`
 * (JSON or the documented SSE event stream), `GET /v1/models`; `x-api-key` and `anthropic-version`
 * required; requests validated as Anthropic does (roles, `max_tokens`, blocks, tool_use/tool_result
 * pairing); `max_tokens` and `stop_sequences` honoured; scripted failures answered as Anthropic
 * error bodies (529 overloaded_error, 429 with Retry-After...), `disconnect_after_chunks` as an
 * `error` event mid-stream.
 */
export async function startFakeAnthropic(options: FakeAnthropicOptions): Promise<FakeAnthropic> {
  const script = parseFakeLlmScript(options.script);
  const now = options.now ?? Date.now;
  let sequence = 0;
  const state: ChatScriptState = {
    script,
    ruleUses: script.rules.map(() => 0),
    nextSequence: () => ++sequence,
    now,
  };
  const requests: RecordedRequest[] = [];
  const lifetime = new AbortController();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { record, signal } = recordExchange(req, res, { requests, now, lifetime });
    try {
      const body = await readJsonBody(req);
      if (body.kind === 'json') record.body = body.value;
      const key = req.headers['x-api-key'];
      if (typeof key !== 'string' || key === '')
        return sendAnthropicError(res, 401, 'x-api-key header is required');
      if (options.apiKeys && !options.apiKeys.includes(key))
        return sendAnthropicError(res, 401, 'invalid x-api-key');
      if (!req.headers['anthropic-version'])
        return sendAnthropicError(res, 400, 'anthropic-version: header is required');
      const route = `${record.method} ${record.path}`;
      if (route === 'GET /v1/models') {
        const data = script.models.map((id) => ({
          type: 'model',
          id,
          display_name: id,
          created_at: new Date(now()).toISOString(),
        }));
        return sendJson(res, 200, {
          data,
          has_more: false,
          first_id: data[0]?.id ?? null,
          last_id: data.at(-1)?.id ?? null,
        });
      }
      if (route !== 'POST /v1/messages') return sendAnthropicError(res, 404, `Not found: ${route}`);
      if (body.kind === 'malformed')
        return sendAnthropicError(
          res,
          400,
          `There was an issue with your request body: ${body.error.message}`,
        );
      await handleMessages(res, record, state, signal);
    } catch (error) {
      if (signal.aborted) return;
      if (res.headersSent) return void res.destroy(error instanceof Error ? error : undefined);
      sendAnthropicError(res, 500, `fake-anthropic failed: ${String(error)}`, 'api_error');
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  const { baseUrl, port } = await listenOnLoopback(server, options.port, options.host);
  return {
    url: `${baseUrl}/v1`,
    port,
    requests,
    reset: () => {
      requests.length = 0;
      state.ruleUses.fill(0);
    },
    close: closeOnce(server, lifetime),
  };
}
