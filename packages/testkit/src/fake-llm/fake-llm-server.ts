import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeOnce, listenOnLoopback, recordExchange } from '../loopback-server.js';
import { respondWithFailure } from './chat-completion-responder.js';
import { type ChatScriptState, handleChatCompletions } from './chat-completions-route.js';
import { toEmbeddingsResponse } from './embeddings.js';
import { sendJson, sendOpenAiError } from './openai-error.js';
import { describeRequestError, type EmbeddingsRequest, embeddingsRequestSchema } from './openai-request.js';
import type { RecordedRequest } from './recorded-request.js';
import { readJsonBody } from './request-body.js';
import { matchesRequest } from './rule-matcher.js';
import {
  type FakeLlmFail,
  type FakeLlmScript,
  type FakeLlmScriptInput,
  parseFakeLlmScript,
} from './script.js';

/** Options of {@link startFakeLlm}. */
export interface FakeLlmOptions {
  /** The script, as YAML text or as an object (validated either way). */
  script: FakeLlmScriptInput | FakeLlmScript | string;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to bind; defaults to 127.0.0.1. */
  host?: string;
  /** Clock for `created` fields and request timestamps; defaults to `Date.now`. */
  now?: () => number;
}

/** A running fake OpenAI-compatible server. */
export interface FakeLlm {
  /** Base URL including `/v1`, ready for an OpenAI client's `baseURL`. */
  url: string;
  port: number;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  /** Stops listening and cuts open connections (streams in flight end abruptly). */
  close(): Promise<void>;
  /** Forgets recorded requests and rule use counts (`times`), keeping the server up. */
  reset(): void;
}

type Route = (res: ServerResponse, record: RecordedRequest, signal: AbortSignal) => Promise<void> | void;

function createRoutes(state: ChatScriptState): Record<string, Route> {
  return {
    'POST /v1/chat/completions': (res, record, signal) => handleChatCompletions(res, record, state, signal),
    'POST /v1/embeddings': (res, record, signal) => {
      const parsed = embeddingsRequestSchema.safeParse(record.body);
      if (!parsed.success) {
        sendOpenAiError(res, 400, {
          message: describeRequestError(parsed.error),
          code: 'invalid_request_body',
        });
        return;
      }
      const failing = failRuleFor(state, parsed.data);
      if (failing) return respondWithFailure(res, failing, signal);
      sendJson(res, 200, toEmbeddingsResponse(parsed.data));
    },
    'GET /v1/models': (res) => {
      const created = Math.floor(state.now() / 1000);
      const data = state.script.models.map((id) => ({ id, object: 'model', created, owned_by: 'testkit' }));
      sendJson(res, 200, { object: 'list', data });
    },
  };
}

/**
 * The scripted failure for an embeddings call: the first rule with a `fail` status that matches
 * the input read as the last message (its use counted), else undefined.
 */
function failRuleFor(state: ChatScriptState, request: EmbeddingsRequest): FakeLlmFail | undefined {
  const text = Array.isArray(request.input) ? request.input.map(String).join('\n') : request.input;
  const view = { model: request.model, messages: [{ role: 'user', content: text }] };
  const index = state.script.rules.findIndex(
    (rule, i) =>
      rule.fail?.status !== undefined &&
      (rule.times === undefined || (state.ruleUses[i] ?? 0) < rule.times) &&
      matchesRequest(rule.match, view),
  );
  const rule = state.script.rules[index];
  if (!rule) return undefined;
  state.ruleUses[index] = (state.ruleUses[index] ?? 0) + 1;
  return rule.fail;
}

/**
 * Starts a scripted OpenAI-compatible LLM server on loopback.
 *
 * @example
 * const llm = await startFakeLlm({ script: 'rules:\n  - match: { last_message: hi }\n    reply: { text: Hello }' });
 * const client = new OpenAI({ baseURL: llm.url, apiKey: 'test', maxRetries: 0 });
 * // ... llm.requests[0].headers.authorization === 'Bearer test'
 * await llm.close();
 */
export async function startFakeLlm(options: FakeLlmOptions): Promise<FakeLlm> {
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
  const routes = createRoutes(state);
  const lifetime = new AbortController();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { record, signal } = recordExchange(req, res, { requests, now, lifetime });

    try {
      await dispatch(req, res, record, signal);
    } catch (error) {
      // An aborted read or delay means the client left or the server is closing: nobody is left to answer.
      if (signal.aborted) return;
      if (res.headersSent) {
        res.destroy(error instanceof Error ? error : undefined);
        return;
      }
      sendOpenAiError(res, 500, { message: `fake-llm failed: ${String(error)}`, code: 'fake_llm_internal' });
    }
  }

  async function dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    record: RecordedRequest,
    signal: AbortSignal,
  ): Promise<void> {
    const body = await readJsonBody(req);
    if (body.kind === 'json') record.body = body.value;
    const route = routes[`${record.method} ${record.path}`];
    if (!route) {
      const message = `Invalid URL (${record.method} ${record.path})`;
      sendOpenAiError(res, 404, { message, type: 'invalid_request_error', code: 'not_found' });
      return;
    }
    if (body.kind === 'malformed') {
      const message = `request body is not valid JSON: ${body.error.message}`;
      sendOpenAiError(res, 400, { message, code: 'invalid_json' });
      return;
    }
    await route(res, record, signal);
  }

  const server = createServer((req, res) => {
    void handle(req, res);
  });
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
